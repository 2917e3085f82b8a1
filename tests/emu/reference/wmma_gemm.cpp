// tests/kernels/wmma_gemm.cu: D = A B + C, A row-major (M x K), B column-major (b[n*K + k]), C and
// D row-major; each element by the multiply-accumulate rule of docs/EMULATOR.md ("Tensor cores"):
// acc = C(m,n), then acc = fma(A(m,k), B(k,n), acc) for k in order. The spec's inputs are small
// integers: every sum is exact, whatever the order.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("wmma_gemm") {
  auto a = buffer<uint16_t>(L, "a");
  auto b = buffer<uint16_t>(L, "b");
  auto c = buffer<float>(L, "c");
  auto d = buffer<float>(L, "d");
  const int32_t M = L.scalar<int32_t>("M"), N = L.scalar<int32_t>("N"), K = L.scalar<int32_t>("K");
  if (M % 16 || N % 16 || K % 16 || M > 32 || N > 16 * int32_t(numBlocks(L)))
    throw std::runtime_error("wmma_gemm: M, N, K must be multiples of 16, M at most 32, N at most 16 per CTA");
  for (int32_t m = 0; m < M; ++m)
    for (int32_t n = 0; n < N; ++n) {
      float acc = c[m * N + n];
      for (int32_t k = 0; k < K; ++k) acc = std::fma(halfToF32(a[m * K + k]), halfToF32(b[n * K + k]), acc);
      d[m * N + n] = acc;
    }
}
