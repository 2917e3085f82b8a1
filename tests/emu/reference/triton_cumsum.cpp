// tests/kernels/triton/cumsum.py
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_cumsum") {
  auto x = buffer<int32_t>(L, "x");
  auto out = buffer<int32_t>(L, "out");
  auto total = buffer<int32_t>(L, "total");
  const int32_t n = L.scalar<int32_t>("n");
  for (uint32_t row = 0; row < numBlocks(L); ++row) {
    const int64_t base = int64_t(row) * n;
    int32_t s = 0;
    for (int32_t k = 0; k < n; ++k) {
      s = wadd(s, x[base + k]);
      out[base + k] = s;
    }
    total[row] = s;
  }
}
