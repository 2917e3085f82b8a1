// tests/kernels/sync_dead_prologue.cu: a register-only salt, then each thread combines the next
// thread's slot with twice its own.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_dead_prologue") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_dead_prologue needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t bx = makeThread(L, blk, 0).bx;
    std::vector<int32_t> s(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) {
      int32_t salt = wsub(static_cast<int32_t>((t * 2654435761u) >> 24), static_cast<int32_t>(bx));
      s[t] = wadd(in[bx * BLOCK + t], salt);
    }
    for (uint32_t t = 0; t < BLOCK; ++t) out[bx * BLOCK + t] = wsub(s[(t + 1) & (BLOCK - 1)], wmul(2, s[t]));
  }
}
