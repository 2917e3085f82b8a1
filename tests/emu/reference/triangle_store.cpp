// tests/kernels/triangle_store.cu: conditional stores; untouched elements keep their values.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triangle_store") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto aux = buffer<int32_t>(L, "aux");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    if (v > 10) out[i] = wmul(v, 2);
    if (v < -50) aux[i] = wadd(aux[i], v);
    if ((v & 3) == 1) aux[i] ^= 0x100;
  });
}
