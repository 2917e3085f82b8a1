// tests/kernels/loop_divergent_exit.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("loop_divergent_exit") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t acc = 0;
    for (uint32_t k = 0; k < t.tx % 37; ++k)
      acc = wadd(acc, in[(static_cast<uint32_t>(i) + k) % static_cast<uint32_t>(n)] ^ static_cast<int32_t>(k));
    uint32_t x = static_cast<uint32_t>(in[i]);
    int32_t steps = 0;
    while (x != 1u && steps < 200) {
      x = (x & 1u) ? 3u * x + 1u : x >> 1;
      ++steps;
    }
    out[i] = wadd(wmul(acc, 256), steps);
  });
}
