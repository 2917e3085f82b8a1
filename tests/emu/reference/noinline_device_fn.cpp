// tests/kernels/noinline_device_fn.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
int32_t mixValues(int32_t x, int32_t y, int32_t* extra) {
  int32_t r = wadd(wmul(x, 31), y);
  if (r < 0) r = wadd(wneg(r), y & 7);
  else r = sdiv(r, y | 1);
  *extra = wadd(*extra, r & 0xf);
  return r;
}
}  // namespace

PTXOPT_REFERENCE("noinline_device_fn") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t extra = i;
    int32_t r1 = mixValues(a[i], b[i], &extra);
    int32_t r2 = mixValues(b[i], r1, &extra);
    out[i] = wadd(wadd(r1, wmul(r2, 2)), extra);
  });
}
