// tests/kernels/clang/smem_reduction.cu (clang++-14 PTX): the halving loop is fully unrolled
// into seven bar.sync-separated steps; thread 0 stores the block sum and adds it into total with
// atom.global.add.u32 (int adds wrap, so the total is the same in any CTA order).
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_smem_reduction") {
  constexpr uint32_t BLOCK = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto total = buffer<int32_t>(L, "total");
  const int32_t n = L.scalar<int32_t>("n");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("clang_smem_reduction needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    Thread t0 = makeThread(L, blk, 0);
    std::vector<int32_t> s(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) {
      int32_t i = static_cast<int32_t>(t0.bx * BLOCK + t);
      s[t] = (i < n) ? in[i] : 0;
    }
    for (uint32_t st = BLOCK / 2; st > 0; st >>= 1)
      for (uint32_t t = 0; t < st; ++t) s[t] = wadd(s[t], s[t + st]);
    out[t0.bx] = s[0];
    total[0] = wadd(total[0], s[0]);
  }
}
