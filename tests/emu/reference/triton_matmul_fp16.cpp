// tests/kernels/triton/matmul_fp16.py: tl.dot on f16 becomes mma.sync.m16n8k16 (f32 accumulators)
// over the K tiles, the masked steps of the last tile multiplying zeros; the result is rounded to
// f16 once. Each C element is the multiply-accumulate rule of docs/EMULATOR.md ("Tensor cores"):
// acc = fma(a[m][k], b[k][n], acc) over k in order from acc = 0, then cvt.rn.f16.f32. The spec's
// inputs are small integers, so every sum is exact and the order of the additions does not matter.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_matmul_fp16") {
  auto a = buffer<uint16_t>(L, "a");
  auto b = buffer<uint16_t>(L, "b");
  auto c = buffer<uint16_t>(L, "c");
  const int32_t M = L.scalar<int32_t>("M"), N = L.scalar<int32_t>("N"), K = L.scalar<int32_t>("K");
  const int32_t sa = L.scalar<int32_t>("stride_am"), sb = L.scalar<int32_t>("stride_bk"), sc = L.scalar<int32_t>("stride_cm");
  for (int32_t m = 0; m < M; ++m)
    for (int32_t n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int32_t k = 0; k < K; ++k) acc = std::fma(halfToF32(a[int64_t(m) * sa + k]), halfToF32(b[int64_t(k) * sb + n]), acc);
      c[int64_t(m) * sc + n] = f32ToHalfRn(acc);
    }
}
