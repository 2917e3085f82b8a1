// tests/kernels/syncwarp.cu: each warp exchanges through its slice of buf[], ordered by
// __syncwarp; all reads of a phase happen before the writes of the next.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("syncwarp") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  if (nt != 64) throw std::runtime_error("syncwarp needs 64 threads per CTA (buf[64])");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> buf(nt), left(nt), right(nt);
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      buf[t] = (i < n) ? in[i] : 0;
    }
    for (uint32_t t = 0; t < nt; ++t) {
      uint32_t base = t & ~31u, lane = t & 31u;
      left[t] = buf[base + ((lane + 31) & 31)];
      right[t] = buf[base + ((lane + 1) & 31)];
    }
    for (uint32_t t = 0; t < nt; ++t) buf[t] = wadd(wsub(left[t], right[t]), wmul(buf[t], 2));
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      uint32_t base = t & ~31u, lane = t & 31u;
      if (i < n) out[i] = buf[base + (31 - lane)];
    }
  }
}
