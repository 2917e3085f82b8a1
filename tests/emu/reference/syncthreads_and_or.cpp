// tests/kernels/syncthreads_and_or.cu: bar.red.and/or over all threads of the CTA.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("syncthreads_and_or") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const int32_t threshold = L.scalar<int32_t>("threshold");
  const uint32_t nt = threadsPerBlock(L);
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> v(nt);
    bool allSmall = true, anyBig = false, anyZero = false;
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      v[t] = (i < n) ? in[i] : 0;
      allSmall &= v[t] < threshold;
      anyBig |= v[t] >= threshold;
      anyZero |= v[t] == 0 && i < n;
    }
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      int32_t r = allSmall ? wadd(v[t], 1) : wsub(v[t], 1);
      if (i < n) out[i] = wadd(wadd(wmul(r, 4), anyBig ? 2 : 0), anyZero ? 1 : 0);
    }
  }
}
