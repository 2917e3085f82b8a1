// tests/kernels/dynamic_smem.cu: ints then shorts in the dynamic shared memory; each thread reads
// the mirrored slot after the barrier.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("dynamic_smem") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  if (L.spec.dynamicSharedBytes < nt * 6) throw std::runtime_error("dynamic_smem: dynamic shared memory too small");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> vals(nt);
    std::vector<int16_t> tags(nt);
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      vals[t] = (i < n) ? in[i] : 0;
      tags[t] = static_cast<int16_t>(static_cast<uint16_t>(t * 3u - 100u));
    }
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      uint32_t r = nt - 1 - t;
      if (i < n) out[i] = wadd(wmul(vals[r], 2), tags[r]);
    }
  }
}
