// tests/kernels/warp_size.cu: warpSize is 32 (WARP_SZ in the PTX).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("warp_size") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t warp = static_cast<int32_t>(t.tx / 32), lane = static_cast<int32_t>(t.tx % 32);
    int32_t sum = 0;
    for (int32_t k = lane + warp; k < n; k += 32) sum += in[k] * (k % 3 - 1);
    out[globalX(t)] = sum * 1000 + warp * 32 + lane;
  });
}
