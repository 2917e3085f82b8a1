// tests/kernels/grid_stride_loop.cu: fmaf(a, x, y) - 0.5f * x' is contracted to
// fma(x', -0.5f, fma(a, x, y)).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("grid_stride_loop") {
  auto x = buffer<float>(L, "x");
  auto y = buffer<float>(L, "y");
  const float a = L.scalar<float>("a");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t stride = static_cast<int32_t>(t.nbx * t.ntx);
    for (int32_t i = globalX(t); i < n; i += stride) y[i] = std::fma(x[(i + 1) % n], -0.5f, std::fma(a, x[i], y[i]));
  });
}
