// tests/kernels/triton/matmul_tile.py: tl.dot in IEEE fp32 becomes, for each element of C, one
// chain acc = fma(a[m][k], b[k][n], acc) over k in order from acc = 0, including the masked
// steps of the last K tile (a = b = 0).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_matmul_tile") {
  constexpr int32_t BLOCK_K = 16;
  auto a = buffer<float>(L, "a");
  auto b = buffer<float>(L, "b");
  auto c = buffer<float>(L, "c");
  const int32_t M = L.scalar<int32_t>("M"), N = L.scalar<int32_t>("N"), K = L.scalar<int32_t>("K");
  const int32_t sa = L.scalar<int32_t>("stride_am"), sb = L.scalar<int32_t>("stride_bk"), sc = L.scalar<int32_t>("stride_cm");
  const int32_t kSteps = (K + BLOCK_K - 1) / BLOCK_K * BLOCK_K;
  for (int32_t m = 0; m < M; ++m)
    for (int32_t n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int32_t k = 0; k < kSteps; ++k) {
        float av = k < K ? a[int64_t(m) * sa + k] : 0.0f;
        float bv = k < K ? b[int64_t(k) * sb + n] : 0.0f;
        acc = std::fma(av, bv, acc);
      }
      c[int64_t(m) * sc + n] = acc;
    }
}
