// tests/kernels/triton/softmax_row.py: row_max exactly; out is exp(x - max) / sum, whose PTX uses
// ex2.approx and div.full, so triton_softmax_row.compare.json leaves it out of the comparison
// (it is computed here in double only to have plausible numbers).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_softmax_row") {
  auto x = buffer<float>(L, "x");
  auto out = buffer<float>(L, "out");
  auto rowMax = buffer<float>(L, "row_max");
  const int32_t inStride = L.scalar<int32_t>("in_stride"), outStride = L.scalar<int32_t>("out_stride");
  const int32_t nCols = L.scalar<int32_t>("n_cols");
  for (uint32_t row = 0; row < numBlocks(L); ++row) {
    const int64_t in0 = int64_t(row) * inStride, out0 = int64_t(row) * outStride;
    float m = -std::numeric_limits<float>::infinity();
    for (int32_t c = 0; c < nCols; ++c) m = std::max(m, x[in0 + c]);  // max.f32 (no NaN in the data)
    double sum = 0;
    for (int32_t c = 0; c < nCols; ++c) sum += std::exp(double(x[in0 + c] - m));
    for (int32_t c = 0; c < nCols; ++c) out[out0 + c] = float(std::exp(double(x[in0 + c] - m)) / sum);
    rowMax[row] = m;
  }
}
