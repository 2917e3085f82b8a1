// tests/kernels/numba/saxpy.py (NVVM contracts a * x + y into fma.rn.f32).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("numba_saxpy") {
  auto out = buffer<float>(L, "out");
  auto x = buffer<float>(L, "x");
  auto y = buffer<float>(L, "y");
  const float a = L.scalar<float>("a");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int64_t i = int64_t(t.bx) * t.ntx + t.tx;  // cuda.grid(1), an int64
    if (i < n) out[i] = std::fma(a, x[i], y[i]);
  });
}
