// tests/kernels/unsigned_compare.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("unsigned_compare") {
  auto a = buffer<uint32_t>(L, "a");
  auto b = buffer<uint32_t>(L, "b");
  auto out = buffer<uint32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    uint32_t i = t.bx * t.ntx + t.tx;
    if (i >= static_cast<uint32_t>(n)) return;
    uint32_t x = a[i], y = b[i];
    int32_t sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
    uint64_t wx = static_cast<uint64_t>(x) << 31, wy = static_cast<uint64_t>(y) * 3ull;
    uint32_t r = 0;
    r |= uint32_t(x < y) << 0;
    r |= uint32_t(x <= y) << 1;
    r |= uint32_t(x > y) << 2;
    r |= uint32_t(x >= y) << 3;
    r |= uint32_t(sx < sy) << 4;
    r |= uint32_t(sx >= sy) << 5;
    r |= uint32_t(x > 0x80000000u) << 6;
    r |= uint32_t(sx < -5) << 7;
    r |= uint32_t(wx < wy) << 8;
    r |= uint32_t(static_cast<int64_t>(wx) > static_cast<int64_t>(wy - 0x100000000ull)) << 9;
    r |= uint32_t(x - y < 1000u) << 10;
    r |= uint32_t(x + y < x) << 11;
    uint32_t cnt = 0;
    for (uint32_t k = x >> 28; k < 16u; ++k) ++cnt;
    if (x > y) r += (x - y) & 0xfff00000u;
    else r += (y - x) & 0x0ff00000u;
    out[i] = r + (cnt << 12);
  });
}
