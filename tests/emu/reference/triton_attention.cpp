// tests/kernels/triton/attention.py with the spec's inputs: Q lives in head dimensions 0-31 and K in
// 32-63, so every score q . k is exactly 0 and the online softmax gives every key the weight
// exp(0) = 1 (the first rescale is exp(-inf) = 0). acc is then the exact sum of V over the keys
// (small integers), row_sum the number of keys, and Out(r, d) = f16(sum_c V(c, d) / n_ctx), the
// division exact (n_ctx is a power of two).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_attention") {
  auto q = buffer<uint16_t>(L, "Q");
  auto k = buffer<uint16_t>(L, "K");
  auto v = buffer<uint16_t>(L, "V");
  auto out = buffer<uint16_t>(L, "Out");
  constexpr int32_t kHead = 64;
  const int32_t nCtx = L.scalar<int32_t>("n_ctx");
  const int32_t sq = L.scalar<int32_t>("stride_q"), sk = L.scalar<int32_t>("stride_k");
  const int32_t sv = L.scalar<int32_t>("stride_v"), so = L.scalar<int32_t>("stride_o");
  // The premise of the spec: every score is 0.
  for (int32_t r = 0; r < nCtx; ++r)
    for (int32_t c = 0; c < nCtx; ++c) {
      double s = 0;
      for (int32_t d = 0; d < kHead; ++d) s += double(halfToF32(q[int64_t(r) * sq + d])) * halfToF32(k[int64_t(c) * sk + d]);
      if (s != 0) throw std::runtime_error("triton_attention: the spec's Q and K must make every score 0");
    }
  for (int32_t r = 0; r < nCtx; ++r)
    for (int32_t d = 0; d < kHead; ++d) {
      float sum = 0.0f;
      for (int32_t c = 0; c < nCtx; ++c) sum += halfToF32(v[int64_t(c) * sv + d]);
      out[int64_t(r) * so + d] = f32ToHalfRn(sum / float(nCtx));
    }
}
