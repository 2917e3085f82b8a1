// tests/kernels/and_or_conditions.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("and_or_conditions") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    int32_t r = 0;
    if (i < n && a[i] > 0 && b[i] < 5) r |= 1;
    if (i < n && (a[i] == b[i] || (i + 1 < n && a[i + 1] < -10))) r |= 2;
    if ((i & 1) && i < n && !(b[i] > 0 || a[i] > 0)) r |= 4;
    if (i < n && ((a[i] > 3 && b[i] > 3) || (a[i] < -3 && b[i] < -3))) r |= 8;
    if (i < n) out[i] = r;
  });
}
