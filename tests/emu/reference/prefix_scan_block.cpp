// tests/kernels/prefix_scan_block.cu: the Blelloch scan level by level; within a level the
// updated slots are disjoint from the slots read, so running the threads in order is exact.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("prefix_scan_block") {
  constexpr int32_t N = 256;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto sums = buffer<int32_t>(L, "sums");
  const int32_t n = L.scalar<int32_t>("n");
  if (threadsPerBlock(L) != N) throw std::runtime_error("prefix_scan_block needs 256 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    Thread t0 = makeThread(L, blk, 0);
    std::vector<int32_t> s(N);
    for (int32_t t = 0; t < N; ++t) {
      int32_t g = static_cast<int32_t>(t0.bx) * N + t;
      s[t] = (g < n) ? in[g] : 0;
    }
    for (int32_t d = 1; d < N; d <<= 1)
      for (int32_t t = 0; t < N; ++t) {
        int32_t idx = (t + 1) * d * 2 - 1;
        if (idx < N) s[idx] = wadd(s[idx], s[idx - d]);
      }
    sums[t0.bx] = s[N - 1];
    s[N - 1] = 0;
    for (int32_t d = N / 2; d >= 1; d >>= 1)
      for (int32_t t = 0; t < N; ++t) {
        int32_t idx = (t + 1) * d * 2 - 1;
        if (idx < N) {
          int32_t tmp = s[idx - d];
          s[idx - d] = s[idx];
          s[idx] = wadd(s[idx], tmp);
        }
      }
    for (int32_t t = 0; t < N; ++t) {
      int32_t g = static_cast<int32_t>(t0.bx) * N + t;
      if (g < n) out[g] = s[t];
    }
  }
}
