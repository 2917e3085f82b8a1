// tests/kernels/numba/loop_break.py (the walk stays positive, so Python's % is C's here).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("numba_loop_break") {
  auto out = buffer<int32_t>(L, "out");
  auto steps = buffer<int32_t>(L, "steps");
  auto x = buffer<int32_t>(L, "x");
  const int64_t m = L.scalar<int32_t>("m"), n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int64_t i = int64_t(t.bx) * t.ntx + t.tx;
    if (i >= n) return;
    int64_t v = x[i];
    if (v <= 0) throw std::runtime_error("numba_loop_break: x must be positive");
    int64_t k = 0;
    while (k < m) {
      if (v < 2 || v % 7 == 0) break;
      v = (v & 1) ? 3 * v + 1 : v >> 1;
      ++k;
    }
    out[i] = static_cast<int32_t>(v);
    steps[i] = static_cast<int32_t>(k);
  });
}
