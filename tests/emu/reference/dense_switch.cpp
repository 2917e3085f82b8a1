// tests/kernels/dense_switch.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("dense_switch") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t r = i;
    switch (srem(v, 9)) {
      case 0: r = wadd(v, 1); break;
      case 1: r = wmul(v, 3); break;
      case 2: r = wsub(v, 17); break;
      case 3: r = v ^ 0x55; break;
      case 4: r = wshl(v, 2); [[fallthrough]];
      case 5: r = wadd(r, v >> 1); break;
      case 6: r = wmul(v, v); break;
      case 7: r = wneg(v); break;
      default: r = wadd(42, i); break;
    }
    out[i] = r;
  });
}
