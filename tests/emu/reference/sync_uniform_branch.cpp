// tests/kernels/sync_uniform_branch.cu: even CTAs store x + 1; odd CTAs store three times the
// next thread's input minus their own.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_uniform_branch") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_uniform_branch needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t bx = makeThread(L, blk, 0).bx;
    const uint32_t base = bx * BLOCK;
    if ((bx & 1) == 0) {
      for (uint32_t t = 0; t < BLOCK; ++t) out[base + t] = wadd(in[base + t], 1);
      continue;
    }
    std::vector<int32_t> s(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) s[t] = wmul(in[base + t], 3);
    for (uint32_t t = 0; t < BLOCK; ++t) out[base + t] = wsub(s[(t + 1) & (BLOCK - 1)], in[base + t]);
  }
}
