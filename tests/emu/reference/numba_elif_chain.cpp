// tests/kernels/numba/elif_chain.py (int64 arithmetic, truncated to int32 on the store).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("numba_elif_chain") {
  auto out = buffer<int32_t>(L, "out");
  auto x = buffer<int32_t>(L, "x");
  const int64_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int64_t i = int64_t(t.bx) * t.ntx + t.tx;
    if (i >= n) return;
    int64_t v = x[i];
    int64_t r;
    switch (v & 7) {
      case 0: r = v + 100; break;
      case 1: r = v * 5; break;
      case 2: r = v ^ 0x5a5a; break;
      case 3: r = v * 8 - v; break;  // (v << 3) - v
      case 4: r = -v; break;
      case 6: r = v >> 2; break;
      default: r = i; break;
    }
    out[i] = static_cast<int32_t>(static_cast<uint64_t>(r));
  });
}
