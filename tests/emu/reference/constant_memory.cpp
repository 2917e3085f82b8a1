// tests/kernels/constant_memory.cu. nvcc contracts the Horner step p * v + c and the final
// p + lut * coeff into fma.rn.f32.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("constant_memory") {
  static const float coeffs[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, 3.0f, -2.0f, 0.75f};
  static const int32_t lut[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  auto x = buffer<float>(L, "x");
  auto sel = buffer<int32_t>(L, "sel");
  auto out = buffer<float>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float v = x[i];
    float p = coeffs[7];
    for (int k = 6; k >= 0; --k) p = mulAdd(L, v, p, coeffs[k]);
    int32_t s = sel[i] & 15;
    out[i] = mulAdd(L, coeffs[lut[s] & 7], static_cast<float>(lut[s]), p);
  });
}
