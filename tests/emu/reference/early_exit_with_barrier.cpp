// tests/kernels/early_exit_with_barrier.cu: whole CTAs leave before the barriers; the others
// run three barrier-separated phases over s[64].
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("early_exit_with_barrier") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const int32_t activeBlocks = L.scalar<int32_t>("active_blocks");
  const uint32_t nt = threadsPerBlock(L);
  if (nt != 64) throw std::runtime_error("early_exit_with_barrier needs 64 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    Thread t0 = makeThread(L, blk, 0);
    if (static_cast<int32_t>(t0.bx) >= activeBlocks) continue;
    if (static_cast<int32_t>(t0.bx * t0.ntx) >= n) continue;
    std::vector<int32_t> s(64), r(64);
    for (uint32_t t = 0; t < 64; ++t) {
      int32_t i = static_cast<int32_t>(t0.bx * t0.ntx + t);
      s[t] = (i < n) ? in[i] : 0;
    }
    for (uint32_t t = 0; t < 64; ++t) r[t] = wadd(wadd(s[t], s[(t + 1) & 63]), s[(t + 63) & 63]);
    s = r;
    for (uint32_t t = 0; t < 64; ++t) {
      int32_t i = static_cast<int32_t>(t0.bx * t0.ntx + t);
      if (i < n) out[i] = wsub(s[63 - t], r[t]);
    }
  }
}
