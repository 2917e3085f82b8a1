// tests/kernels/clang/syncthreads_count_atomics.cu (clang++-14 PTX): bar.red.popc.u32,
// bar.red.and.pred and bar.red.or.pred over all threads of the CTA (threads past n vote with
// v = 0), then atom.global.{add.u32,min.s32,max.s32} by the threads below n, whose final values
// do not depend on the order. The "+ (any_zero ? 1 : 0)" is an or.b32 in the PTX, the same value
// since the rest is even.
#include <algorithm>
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_syncthreads_count_atomics") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto acc = buffer<int32_t>(L, "acc");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> v(nt);
    int32_t positives = 0;
    bool allSmall = true, anyZero = false;
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      v[t] = (i < n) ? in[i] : 0;
      positives += v[t] > 0;
      allSmall &= v[t] < 9 + static_cast<int32_t>(blk);  // the CTA index is blk (a 1-D grid)
      anyZero |= v[t] == 0 && i < n;
    }
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      if (i >= n) continue;
      out[i] = wadd(wadd(wadd(wmul(v[t], 1000), wmul(positives, 10)), allSmall ? 2 : 0), anyZero ? 1 : 0);
      acc[0] = wadd(acc[0], v[t]);       // atom.global.add.u32
      acc[1] = std::min(acc[1], v[t]);   // atom.global.min.s32
      acc[2] = std::max(acc[2], v[t]);   // atom.global.max.s32
    }
  }
}
