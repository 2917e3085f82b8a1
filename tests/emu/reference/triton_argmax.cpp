// tests/kernels/triton/argmax.py: the first index of the row's maximum (no NaN in the data).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_argmax") {
  auto x = buffer<float>(L, "x");
  auto idx = buffer<int32_t>(L, "idx");
  auto mx = buffer<float>(L, "max");
  const int32_t stride = L.scalar<int32_t>("stride"), nCols = L.scalar<int32_t>("n_cols");
  for (uint32_t row = 0; row < numBlocks(L); ++row) {
    const int64_t base = int64_t(row) * stride;
    int32_t best = 0;
    for (int32_t c = 1; c < nCols; ++c)
      if (x[base + c] > x[base + best]) best = c;
    idx[row] = best;
    mx[row] = x[base + best];
  }
}
