// tests/kernels/clang/divergent_if_else.cu (clang++-14 PTX): v / 2 is the shr/add/shr sequence
// (truncation toward zero) and r -= i * 7 one mad.lo with -7; both equal the wrapping C
// arithmetic below.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_divergent_if_else") {
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
      r = wadd(r, in[srem(wadd(i, 1), n)]);
    } else {
      r = sdiv(v, 2);
      r = wsub(r, wmul(i, 7));
      r = wmul(r, in[srem(wadd(i, 3), n)] | 1);
    }
    out[i] = wadd(r, 5);
  });
}
