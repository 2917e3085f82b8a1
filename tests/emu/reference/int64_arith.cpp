// tests/kernels/int64_arith.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("int64_arith") {
  auto a = buffer<int64_t>(L, "a");
  auto b = buffer<int64_t>(L, "b");
  auto out = buffer<uint64_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int64_t x = a[i];
    int64_t y = b[i];
    int64_t d = (y == 0) ? 13 : y;
    uint64_t ux = static_cast<uint64_t>(x), ud = static_cast<uint64_t>(d);
    int64_t o = int64_t(4) * i;
    out[o + 0] = static_cast<uint64_t>(sdiv64(x, d)) ^ static_cast<uint64_t>(srem64(x, d)) ^ (ux / ud) ^ (ux % ud);
    out[o + 1] = ux * ud + static_cast<uint64_t>(mulhiS64(x, d)) + mulhiU64(ux, ud);
    out[o + 2] = (ux << (y & 63)) ^ static_cast<uint64_t>(x >> ((y >> 6) & 63)) ^ (ux >> 33);
    out[o + 3] = static_cast<uint64_t>(clz64(ux)) + (static_cast<uint64_t>(popc64(ux)) << 8) +
                 (brev64(ux) & 0xffff0000ull) + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(x))) +
                 static_cast<uint64_t>(static_cast<uint32_t>(x >> 20)) *
                     static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(y)));
  });
}
