// tests/kernels/sparse_switch.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sparse_switch") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t sel;
    switch (in[i]) {
      case 0: sel = -5; break;
      case 1: sel = 1; break;
      case 2: sel = 17; break;
      case 3: sel = 100; break;
      case 4: sel = 1000; break;
      case 5: sel = 65536; break;
      default: sel = wmul(in[i], 7); break;
    }
    int32_t r;
    switch (sel) {
      case -5: r = wmul(i, 2); break;
      case 1: r = wadd(i, 1000); break;
      case 17: r = i ^ 0xff; break;
      case 100: r = wmul(i, i); break;
      case 1000: r = wneg(i); break;
      case 65536: r = wshl(i, 4); break;
      default: r = wadd(sel, i); break;
    }
    out[i] = r;
  });
}
