// tests/kernels/atomics_float.cu: float/double atomicAdd of exact values. The sums are exact in
// every order as long as every partial sum stays exactly representable; that is checked here
// (the magnitudes summed, in units of the finest term, stay below 2^24 for float, 2^53 for
// double), so the final values do not depend on the order the atomics commit in.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("atomics_float") {
  auto in = buffer<int32_t>(L, "in");
  auto facc = buffer<float>(L, "facc");
  auto dacc = buffer<double>(L, "dacc");
  const int32_t n = L.scalar<int32_t>("n");
  // Exact accumulators in units of 1/4 (float) and 1/2 (double).
  int64_t f0 = 0, f1q = 0, f2 = 0, f3 = 0, d0h = 0, d1 = 0;
  int64_t abs0 = 0, abs1q = 0, abs3 = 0;
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    f0 += v;
    abs0 += std::abs(v);
    f1q += v;  // (float)v * 0.25f, in quarters
    abs1q += std::abs(v);
    if (v > 0) ++f2;
    int32_t sq = wmul(v, v);
    f3 += sq;
    abs3 += std::abs(static_cast<int64_t>(sq));
    d0h += v;  // (double)v * 0.5, in halves
    d1 += i & 7;
  });
  if (facc[0] != 0 || facc[1] != 0 || facc[2] != 0 || facc[3] != 0 || dacc[0] != 0 || dacc[1] != 0)
    throw std::runtime_error("atomics_float: the reference assumes zero-initialised accumulators");
  const int64_t lim = int64_t(1) << 24;  // float: every partial sum exact in any order
  if (abs0 >= lim || abs1q >= lim || abs3 >= lim || f2 >= lim)
    throw std::runtime_error("atomics_float: sums are not exact in every order for this input");
  facc[0] = static_cast<float>(f0);
  facc[1] = static_cast<float>(f1q) * 0.25f;
  facc[2] = static_cast<float>(f2);
  facc[3] = static_cast<float>(f3);
  dacc[0] = static_cast<double>(d0h) * 0.5;
  dacc[1] = static_cast<double>(d1);
}
