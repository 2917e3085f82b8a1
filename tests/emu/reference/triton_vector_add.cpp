// tests/kernels/triton/vector_add.py
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_vector_add") {
  auto x = buffer<float>(L, "x");
  auto y = buffer<float>(L, "y");
  auto out = buffer<float>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  for (int32_t i = 0; i < n; ++i) out[i] = x[i] + y[i];  // add.f32
}
