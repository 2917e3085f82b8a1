// tests/kernels/struct_param.cu: the by-value struct Params (32 bytes: f32 scale @0, f32 offset
// @4, s32 mode @8, s8 shift @12, f64 bias[2] @16) read from the parameter bytes. v * scale +
// offset is contracted to fma.rn.f32; fminf/fmaxf are PTX min/max.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("struct_param") {
  auto in = buffer<float>(L, "in");
  auto out = buffer<float>(L, "out");
  const std::vector<uint8_t>& p = L.bytes("p");
  if (p.size() != 32) throw std::runtime_error("struct_param: p must be 32 bytes");
  float scale, offset;
  int32_t mode;
  int8_t shift;
  double bias0, bias1;
  std::memcpy(&scale, &p[0], 4);
  std::memcpy(&offset, &p[4], 4);
  std::memcpy(&mode, &p[8], 4);
  std::memcpy(&shift, &p[12], 1);
  std::memcpy(&bias0, &p[16], 8);
  std::memcpy(&bias1, &p[24], 8);
  const int32_t n = L.scalar<int32_t>("n");
  // shl.b32 with the sign-extended char as the shift amount (amounts above 31 give 0).
  uint32_t amount = static_cast<uint32_t>(static_cast<int32_t>(shift));
  int32_t shifted = amount >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(mode) << amount);
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float s = mulAdd(L, in[i], scale, offset);
    float lo = minF32(s, static_cast<float>(bias0));
    float hi = maxF32(s, static_cast<float>(bias1)) + static_cast<float>(shifted);
    out[2 * int64_t(i)] = lo;
    out[2 * int64_t(i) + 1] = (srem(i, mode) == 0) ? hi : hi - lo;
  });
}
