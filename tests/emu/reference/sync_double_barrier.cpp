// tests/kernels/sync_double_barrier.cu: all slots are written before any is read; the second
// barrier adds nothing.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_double_barrier") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_double_barrier needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t base = makeThread(L, blk, 0).bx * BLOCK;
    std::vector<int32_t> s(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) s[t] = in[base + t] ^ static_cast<int32_t>(t << 4);
    for (uint32_t t = 0; t < BLOCK; ++t) out[base + t] = wsub(s[(t + 17) & (BLOCK - 1)], s[t ^ 3]);
  }
}
