// tests/kernels/irreducible_goto.cu: the same two-entry loop, written with goto.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("irreducible_goto") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    uint32_t v = static_cast<uint32_t>(in[i]);
    uint32_t acc = 0;
    int32_t iter = 0;
    if (v & 1u) goto B;
  A:
    acc += v & 0xffu;
    v = v * 5u + 3u;
    if (++iter >= 20 || (acc & 7u) == 0u) goto done;
  B:
    acc ^= v >> 3;
    v = (v >> 1) + static_cast<uint32_t>(i);
    if (++iter >= 20 || v % 11u == 0u) goto done;
    goto A;
  done:
    out[i] = wadd(static_cast<int32_t>(acc * 32u), iter);
  });
}
