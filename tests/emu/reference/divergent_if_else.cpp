// tests/kernels/divergent_if_else.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("divergent_if_else") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t r;
    if (v & 1) {
      r = wadd(wmul(v, 3), 1);
      r ^= (r >> 2);
      r = wadd(r, in[(i + 1) % n]);
    } else {
      r = sdiv(v, 2);
      r = wsub(r, wmul(i, 7));
      r = wmul(r, in[(i + 3) % n] | 1);
    }
    out[i] = wadd(r, 5);
  });
}
