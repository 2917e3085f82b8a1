// tests/kernels/syncthreads_count.cu: bar.red.popc over all threads of the CTA.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("syncthreads_count") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> v(nt);
    int32_t positives = 0, evens = 0;
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      v[t] = (i < n) ? in[i] : 0;
      positives += v[t] > 0;
      evens += (v[t] & 1) == 0 && i < n;
    }
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      if (i < n) out[i] = wadd(wadd(wmul(v[t], 1000), wmul(positives, 10)), evens & 7);
    }
  }
}
