// tests/kernels/nan_compare.cu: ordered/unordered compares and PTX min/max (NaN loses,
// -0.0 < +0.0), on values with injected NaN, infinities and signed zeros.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("nan_compare") {
  auto a = buffer<float>(L, "a");
  auto b = buffer<float>(L, "b");
  auto out = buffer<uint32_t>(L, "out");
  auto fout = buffer<float>(L, "fout");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float x = a[i];
    float y = b[i];
    switch (i & 7) {
      case 1: x = f32FromBits(0x7fc00000u); break;
      case 2: y = f32FromBits(0xffc00001u); break;
      case 3: x = f32FromBits(0x7f800000u); break;
      case 4: y = -f32FromBits(0x7f800000u); x = y; break;
      case 5: x = -0.0f; y = 0.0f; break;
      default: break;
    }
    uint32_t r = 0;
    r |= uint32_t(x < y) << 0;
    r |= uint32_t(x <= y) << 1;
    r |= uint32_t(x == y) << 2;
    r |= uint32_t(x != y) << 3;
    r |= uint32_t(!(x >= y)) << 4;
    r |= uint32_t(!(x > y)) << 5;
    r |= uint32_t(std::isnan(x)) << 6;
    r |= uint32_t(std::isnan(y)) << 7;
    r |= uint32_t(std::isinf(x)) << 8;
    r |= uint32_t(std::isfinite(y)) << 9;
    r |= uint32_t(std::signbit(x)) << 10;
    r |= uint32_t(x == x) << 11;
    r |= uint32_t(f32Bits(minF32(x, y)) == f32Bits(y)) << 12;
    out[i] = r;
    float m = maxF32(x, y);
    fout[i] = (x > y) ? x - y : (m != m ? -1.0f : m);
  });
}
