// tests/kernels/numba/atomics.py (every final is independent of the order of the atomics).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("numba_atomics") {
  auto hist = buffer<int32_t>(L, "hist");
  auto stats = buffer<int32_t>(L, "stats");
  auto x = buffer<int32_t>(L, "x");
  const int64_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int64_t i = int64_t(t.bx) * t.ntx + t.tx;
    if (i >= n) return;
    int32_t v = x[i];
    hist[v & 7] = wadd(hist[v & 7], 1);
    stats[0] = std::max(stats[0], v);
    stats[1] = std::min(stats[1], v);
    if (v < 0 && stats[2] == 0) stats[2] = 1;  // cas(stats, 2, 0, 1)
    stats[3] = wadd(stats[3], v);
  });
}
