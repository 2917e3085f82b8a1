// tests/kernels/template_kernel.cu: axpy_stride<float, 2> (a * x + y contracted to fma.rn.f32,
// then + x[(i+2)%n]) and axpy_stride<int, 5> (wrapping integer arithmetic).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("template_kernel.float") {
  constexpr int32_t K = 2;
  auto x = buffer<float>(L, "x");
  auto y = buffer<float>(L, "y");
  const float a = L.scalar<float>("a");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i < n) y[i] = mulAdd(L, a, x[i], y[i]) + x[(i + K) % n];
  });
}

PTXOPT_REFERENCE("template_kernel.int") {
  constexpr int32_t K = 5;
  auto x = buffer<int32_t>(L, "x");
  auto y = buffer<int32_t>(L, "y");
  const int32_t a = L.scalar<int32_t>("a");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i < n) y[i] = wadd(wadd(wmul(a, x[i]), y[i]), x[(i + K) % n]);
  });
}
