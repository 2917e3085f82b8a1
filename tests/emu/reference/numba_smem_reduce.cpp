// tests/kernels/numba/smem_reduce.py: the halving tree of each block, step by step (int32 adds
// wrap, as the stores into the int32 shared array do).
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("numba_smem_reduce") {
  constexpr uint32_t BLOCK = 128;
  auto out = buffer<int32_t>(L, "out");
  auto x = buffer<int32_t>(L, "x");
  const int64_t n = L.scalar<int32_t>("n");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("numba_smem_reduce needs 128 threads per block");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> s(BLOCK);
    for (uint32_t t = 0; t < BLOCK; ++t) {
      int64_t i = int64_t(blk) * BLOCK + t;
      s[t] = i < n ? x[i] : 0;
    }
    for (uint32_t st = BLOCK / 2; st > 0; st /= 2)
      for (uint32_t t = 0; t < st; ++t) s[t] = wadd(s[t], s[t + st]);
    out[blk] = s[0];
  }
}
