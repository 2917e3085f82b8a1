// tests/kernels/predicated_select.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("predicated_select") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t x = a[i], y = b[i];
    int32_t r = (x > y) ? x : wadd(y, 1);
    int32_t s = ((x ^ y) & 1) ? wmul(r, 2) : wsub(r, 3);
    int32_t tt = (x < 0) ? wneg(x) : 7;
    out[i] = wadd(s, tt);
  });
}
