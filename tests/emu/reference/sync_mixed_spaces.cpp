// tests/kernels/sync_mixed_spaces.cu: the difference of the two neighbouring slots, scaled and
// offset by the thread index.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_mixed_spaces") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_mixed_spaces needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t base = makeThread(L, blk, 0).bx * BLOCK;
    std::vector<int32_t> s(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) s[t] = in[base + t];
    for (uint32_t t = 0; t < BLOCK; ++t) {
      int32_t v = wsub(s[(t + 1) & (BLOCK - 1)], s[(t + BLOCK - 1) & (BLOCK - 1)]);
      out[base + t] = wadd(wmul(v, 4), static_cast<int32_t>(t));
    }
  }
}
