// tests/kernels/nested_ifs.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("nested_ifs") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t x = a[i], y = b[i], r = 0;
    if (x > 0) {
      if (y > 0) r = (x > y) ? wsub(x, y) : wadd(wmul(y, 2), x);
      else r = (wadd(x, y) > 0) ? wmul(x, y) : wadd(wneg(x), 100);
    } else {
      if (y > x) r = ((y & 3) == 0) ? wshl(y, 3) : (y ^ x);
      else r = (x == y) ? 12345 : wsub(x, wmul(3, y));
    }
    out[i] = r;
  });
}
