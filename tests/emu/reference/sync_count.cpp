// tests/kernels/sync_count.cu: bar.red.popc counts the CTA's positive inputs; each thread stores
// the input seven slots ahead times 1000 plus that count.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_count") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_count needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t base = makeThread(L, blk, 0).bx * BLOCK;
    int32_t count = 0;
    for (uint32_t t = 0; t < BLOCK; ++t) count += in[base + t] > 0;
    for (uint32_t t = 0; t < BLOCK; ++t) out[base + t] = wadd(wmul(in[base + (t + 7) % BLOCK], 1000), count);
  }
}
