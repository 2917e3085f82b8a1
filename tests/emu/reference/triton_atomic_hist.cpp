// tests/kernels/triton/atomic_hist.py (the atomics' finals do not depend on their order).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_atomic_hist") {
  auto x = buffer<int32_t>(L, "x");
  auto hist = buffer<int32_t>(L, "hist");
  auto mx = buffer<int32_t>(L, "max");
  const int32_t n = L.scalar<int32_t>("n");
  for (int32_t i = 0; i < n; ++i) {
    hist[x[i] & 15] = wadd(hist[x[i] & 15], 1);
    mx[0] = std::max(mx[0], x[i]);
  }
}
