// tests/kernels/triton/rowmax.py: the maximum of each row of each program's 64 x 64 tile.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_rowmax") {
  auto x = buffer<float>(L, "x");
  auto out = buffer<float>(L, "out");
  constexpr int64_t M = 64, N = 64;
  for (uint32_t tile = 0; tile < numBlocks(L); ++tile)
    for (int64_t r = 0; r < M; ++r) {
      const int64_t row = (int64_t(tile) * M + r) * N;
      float best = x[row];
      for (int64_t c = 1; c < N; ++c) best = x[row + c] > best ? x[row + c] : best;
      out[int64_t(tile) * M + r] = best;
    }
}
