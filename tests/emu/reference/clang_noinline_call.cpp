// tests/kernels/clang/noinline_call.cu (clang++-14 PTX): mix is a real .func (_Z3mixiiPi) whose
// pointer argument is the generic address of the caller's local `extra`; -r + (y & 7) is one
// sub.s32 from (y & 7).
#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
int32_t mix(int32_t x, int32_t y, int32_t* extra) {
  int32_t r = wadd(wmul(x, 31), y);
  if (r < 0) r = wadd(wneg(r), y & 7);
  else r = sdiv(r, y | 1);
  *extra = wadd(*extra, r & 0xf);
  return r;
}
}  // namespace

PTXOPT_REFERENCE("clang_noinline_call") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t extra = i;
    int32_t r1 = mix(a[i], b[i], &extra);
    int32_t r2 = mix(b[i], r1, &extra);
    out[i] = wadd(wadd(r1, wmul(r2, 2)), extra);
  });
}
