// tests/kernels/bitonic_sort_block.cu: the bitonic network run step by step per CTA. Within one
// step the compare-and-swap pairs are disjoint, so running the threads in order is exact.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("bitonic_sort_block") {
  constexpr uint32_t N = 128;
  auto keys = buffer<int32_t>(L, "keys");
  const int32_t n = L.scalar<int32_t>("n");
  if (threadsPerBlock(L) != N) throw std::runtime_error("bitonic_sort_block needs 128 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    Thread t0 = makeThread(L, blk, 0);
    std::vector<int32_t> s(N);
    for (uint32_t t = 0; t < N; ++t) {
      int32_t g = static_cast<int32_t>(t0.bx * N + t);
      s[t] = (g < n) ? keys[g] : 0x7fffffff;
    }
    for (uint32_t k = 2; k <= N; k <<= 1) {
      for (uint32_t j = k >> 1; j > 0; j >>= 1) {
        for (uint32_t t = 0; t < N; ++t) {
          uint32_t p = t ^ j;
          if (p > t) {
            int32_t a = s[t], b = s[p];
            bool ascending = (t & k) == 0;
            if ((a > b) == ascending) {
              s[t] = b;
              s[p] = a;
            }
          }
        }
      }
    }
    for (uint32_t t = 0; t < N; ++t) {
      int32_t g = static_cast<int32_t>(t0.bx * N + t);
      if (g < n) keys[g] = s[t];
    }
  }
}
