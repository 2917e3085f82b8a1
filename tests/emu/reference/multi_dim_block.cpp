// tests/kernels/multi_dim_block.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("multi_dim_block") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t w = L.scalar<int32_t>("w"), h = L.scalar<int32_t>("h"), d = L.scalar<int32_t>("d");
  forEachThread(L, [&](const Thread& t) {
    int32_t x = static_cast<int32_t>(t.bx * t.ntx + t.tx);
    int32_t y = static_cast<int32_t>(t.by * t.nty + t.ty);
    int32_t z = static_cast<int32_t>(t.tz);
    if (x >= w || y >= h || z >= d) return;
    int32_t idx = (z * h + y) * w + x;
    int32_t s = wmul(in[idx], 4);
    if (x > 0) s = wadd(s, in[idx - 1]);
    if (x + 1 < w) s = wadd(s, in[idx + 1]);
    if (y > 0) s = wadd(s, in[idx - w]);
    if (y + 1 < h) s = wadd(s, in[idx + w]);
    int32_t tlin = static_cast<int32_t>((t.tz * t.nty + t.ty) * t.ntx + t.tx);
    out[idx] = wadd(wadd(wmul(s, 1000), tlin), wmul(static_cast<int32_t>(t.by * t.nbx + t.bx), 100));
  });
}
