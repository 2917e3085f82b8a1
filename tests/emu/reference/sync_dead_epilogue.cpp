// tests/kernels/sync_dead_epilogue.cu: fill, add the mirrored half, overwrite with three times
// that sum, read the next thread's new value; the trailing barrier changes nothing.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_dead_epilogue") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_dead_epilogue needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t bx = makeThread(L, blk, 0).bx;
    std::vector<int32_t> s(BLOCK), v(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) s[t] = in[bx * BLOCK + t];
    for (uint32_t t = 0; t < BLOCK; ++t) v[t] = wadd(s[t], s[(t + BLOCK / 2) & (BLOCK - 1)]);
    for (uint32_t t = 0; t < BLOCK; ++t) s[t] = wmul(v[t], 3);
    for (uint32_t t = 0; t < BLOCK; ++t) out[bx * BLOCK + t] = wsub(s[(t + 1) & (BLOCK - 1)], v[t]);
  }
}
