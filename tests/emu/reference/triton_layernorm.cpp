// tests/kernels/triton/layernorm.py. The inputs are integers with |x| <= 100, so the sums of x
// and of x*x (at most 200 * 10^4 < 2^24) are exact whatever order the reduction tree adds in;
// every other step is one IEEE operation, spelled out as the PTX has it (div.rn, sqrt.rn, the
// fma the compiler formed of mean_sq - mean * mean and of ... * w + b). No value is subnormal,
// so the .ftz of div/sqrt changes nothing.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_layernorm") {
  auto x = buffer<float>(L, "x");
  auto y = buffer<float>(L, "y");
  auto w = buffer<float>(L, "w");
  auto b = buffer<float>(L, "b");
  auto meanOut = buffer<float>(L, "mean");
  auto rstdOut = buffer<float>(L, "rstd");
  const int32_t stride = L.scalar<int32_t>("stride"), nCols = L.scalar<int32_t>("n_cols");
  const float eps = L.scalar<float>("eps");
  for (uint32_t row = 0; row < numBlocks(L); ++row) {
    const int64_t base = int64_t(row) * stride;
    float sum = 0, sumSq = 0;
    for (int32_t c = 0; c < nCols; ++c) {
      float v = x[base + c];
      if (v != std::trunc(v) || std::fabs(v) > 100) throw std::runtime_error("triton_layernorm: x must be integers in [-100, 100]");
      sum += v;
      sumSq += v * v;
    }
    const float n = static_cast<float>(nCols);  // cvt.rn.f32.s32
    const float mean = sum / n;                 // div.rn
    const float meanSq = sumSq / n;             // div.rn
    const float var = std::fma(-mean, mean, meanSq);
    const float rstd = 1.0f / std::sqrt(var + eps);  // add, sqrt.rn, div.rn
    for (int32_t c = 0; c < nCols; ++c) {
      float centered = x[base + c] - mean;
      float scaled = centered * rstd;  // mul.f32 (the host compiler does not contract here)
      y[base + c] = std::fma(scaled, w[c], b[c]);
    }
    meanOut[row] = mean;
    rstdOut[row] = rstd;
  }
}
