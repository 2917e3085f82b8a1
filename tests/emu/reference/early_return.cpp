// tests/kernels/early_return.cu: outputs of threads that return early keep their initial value.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("early_return") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    if (v < -50) return;
    int32_t r = wadd(wmul(v, 2), 1);
    if (v == 0) {
      out[i] = -1;
      return;
    }
    if (r > 150) return;
    for (int32_t k = 0; k < (v & 7); ++k) r = wadd(r, wmul(k, v));
    out[i] = r;
  });
}
