// tests/kernels/sync_needed_war.cu: phase 1 reads the next slot of the original data, phase 2
// overwrites every slot, phase 3 reads the slot two ahead from the overwritten data.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_needed_war") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const uint32_t nt = threadsPerBlock(L);
  if (nt > 128 || L.block()[1] != 1 || L.block()[2] != 1)
    throw std::runtime_error("sync_needed_war needs a 1D block of at most 128 threads");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const uint32_t base = makeThread(L, blk, 0).bx * nt;
    std::vector<int32_t> s(nt), r(nt);
    for (uint32_t t = 0; t < nt; ++t) s[t] = in[base + t];
    for (uint32_t t = 0; t < nt; ++t) r[t] = s[(t + 1) % nt];
    for (uint32_t t = 0; t < nt; ++t) s[t] = wadd(wmul(r[t], 5), static_cast<int32_t>(t));
    for (uint32_t t = 0; t < nt; ++t) out[base + t] = wsub(s[(t + 2) % nt], r[t]);
  }
}
