// tests/kernels/numba/if_else.py. Numba computes in int64 (an int32 element meets int64
// literals and indices) and truncates to int32 on the store; >> is arithmetic.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("numba_if_else") {
  auto out = buffer<int32_t>(L, "out");
  auto x = buffer<int32_t>(L, "x");
  const int64_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int64_t i = int64_t(t.bx) * t.ntx + t.tx;
    if (i >= n) return;
    int64_t v = x[i];
    int64_t r;
    if (v & 1) {
      r = v * 3 + 1;
      r ^= r >> 2;
      r += x[(i + 1) % n];
    } else {
      r = v >> 1;
      r -= i * 7;
      r *= x[(i + 3) % n] | 1;
    }
    out[i] = static_cast<int32_t>(static_cast<uint64_t>(r + 5));
  });
}
