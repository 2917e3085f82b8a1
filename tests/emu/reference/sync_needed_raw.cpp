// tests/kernels/sync_needed_raw.cu: all slots are written before any is read; each thread adds
// the next thread's slot (wrapping at blockDim.x) to its own.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_needed_raw") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const uint32_t nt = threadsPerBlock(L);
  if (nt > 128 || L.block()[1] != 1 || L.block()[2] != 1)
    throw std::runtime_error("sync_needed_raw needs a 1D block of at most 128 threads");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t base = makeThread(L, blk, 0).bx * nt;
    std::vector<int32_t> s(nt);
    for (uint32_t t = 0; t < nt; ++t) s[t] = wsub(wmul(in[base + t], 3), 1);
    for (uint32_t t = 0; t < nt; ++t) out[base + t] = wadd(s[(t + 1) % nt], s[t]);
  }
}
