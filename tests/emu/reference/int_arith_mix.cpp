// tests/kernels/int_arith_mix.cu, including the inline-PTX bfe/bfi (PTX ISA semantics) and the
// intrinsics __byte_perm (prmt), __funnelshift_l/r (shf.l/r.wrap), __sad/__usad (sad.s32/u32).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("int_arith_mix") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<uint32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t x = a[i];
    int32_t y = b[i];
    int32_t d = (y == 0) ? 7 : y;
    uint32_t ux = static_cast<uint32_t>(x), ud = static_cast<uint32_t>(d), uy = static_cast<uint32_t>(y);
    int64_t o = int64_t(i) * 8;
    out[o + 0] = static_cast<uint32_t>(sdiv(x, d)) ^ static_cast<uint32_t>(srem(x, d)) ^ (ux / ud) ^ (ux % ud);
    out[o + 1] = static_cast<uint32_t>(sdiv(x, 7)) + static_cast<uint32_t>(srem(x, 10)) + ux / 3u + (ux % 1000u);
    out[o + 2] = static_cast<uint32_t>(mulhiS32(x, y)) ^ mulhiU32(ux, uy) ^
                 static_cast<uint32_t>(mulhiS64(static_cast<int64_t>(x) * 3, static_cast<int64_t>(y)));
    int32_t absY = y < 0 ? wneg(y) : y;
    out[o + 3] = static_cast<uint32_t>(wsub(std::min(x, y), std::max(x, y))) + static_cast<uint32_t>(absY) +
                 std::min(ux, ud) + static_cast<uint32_t>(std::max(wneg(y), 3));
    out[o + 4] = (ux >> (y & 31)) ^ static_cast<uint32_t>(x >> ((y >> 3) & 31)) ^ (ux << (y & 15));
    out[o + 5] = popc32(ux) | (clz32(ux) << 8) | (ffs32(uy) << 16) |
                 (popc64(static_cast<uint64_t>(static_cast<int64_t>(x) * y)) << 24);
    out[o + 6] = brev32(ux) ^ prmt(ux, uy, 0x4721u) ^ funnelShiftL(ux, uy, uy) ^ funnelShiftR(ux, uy, 5u) ^ sadS32(x, y, 3u);
    out[o + 7] = bfe32(ux, uy & 31u, 9u, false) + bfe32(ux, 3u, (uy >> 5) & 31u, true) + bfi32(uy, ux, 4u, 12u) +
                 sadU32(ux, uy, 1u);
  });
}
