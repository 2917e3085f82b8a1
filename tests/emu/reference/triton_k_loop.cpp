// tests/kernels/triton/k_loop.py
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_k_loop") {
  auto x = buffer<int32_t>(L, "x");
  auto out = buffer<int32_t>(L, "out");
  const int32_t K = L.scalar<int32_t>("K"), stride = L.scalar<int32_t>("stride");
  for (uint32_t row = 0; row < numBlocks(L); ++row) {
    int32_t s = 0;
    for (int32_t k = 0; k < K; ++k) s = wadd(s, wmul(x[int64_t(row) * stride + k], k % 4 + 1));
    out[row] = s;
  }
}
