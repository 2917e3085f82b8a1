// tests/kernels/unrolled_nested_loops.cu: the unrolled PTX keeps the source order of the fma
// chain and of the accumulation, so the plain loops give the same bits.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("unrolled_nested_loops") {
  auto a = buffer<float>(L, "a");
  auto b = buffer<float>(L, "b");
  auto out = buffer<float>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const int32_t k = L.scalar<int32_t>("k");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float acc = 0.0f;
    for (int32_t j = 0; j < k; ++j) {
      float tt = a[wadd(i, j) & 255];
      for (int32_t m = 0; m < 3; ++m) tt = std::fma(tt, b[wadd(wadd(wmul(i, 3), m), j) & 255], 0.5f * static_cast<float>(m));
      acc += tt;
    }
    out[i] = acc;
  });
}
