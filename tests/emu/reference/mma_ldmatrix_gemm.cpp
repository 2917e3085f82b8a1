// tests/kernels/mma_ldmatrix_gemm.cu: D = A B with A row-major (M x K) and B given as B^T
// (bt[n*K + k]); each element by the multiply-accumulate rule of docs/EMULATOR.md ("Tensor
// cores"), acc = fma(A(m,k), B(k,n), acc) for k in order from 0 (the sm_75 build's fallback
// computes the same chain). The spec's inputs are small integers: every sum is exact.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("mma_ldmatrix_gemm") {
  auto a = buffer<uint16_t>(L, "a");
  auto bt = buffer<uint16_t>(L, "bt");
  auto d = buffer<float>(L, "d");
  const int32_t M = L.scalar<int32_t>("M"), N = L.scalar<int32_t>("N"), K = L.scalar<int32_t>("K");
  if (M != 16 * int32_t(L.grid()[1]) || N != 16 * int32_t(L.grid()[0]) || K % 16)
    throw std::runtime_error("mma_ldmatrix_gemm: one 16x16 tile per CTA, K a multiple of 16");
  for (int32_t m = 0; m < M; ++m)
    for (int32_t n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int32_t k = 0; k < K; ++k) acc = std::fma(halfToF32(a[m * K + k]), halfToF32(bt[n * K + k]), acc);
      d[m * N + n] = acc;
    }
}
