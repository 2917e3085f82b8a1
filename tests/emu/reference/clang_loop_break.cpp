// tests/kernels/clang/loop_break.cu (clang++-14 PTX): the index i * 3 + k is formed as
// ctaid * ntid * 3 + tid * 3 + k, the same value mod 2^32; the two breaks and the continue are
// folded into one exit code per iteration but leave the loop at the same points.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_loop_break") {
  auto data = buffer<int32_t>(L, "data");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const int32_t len = L.scalar<int32_t>("len");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t sum = 0, count = 0;
    for (int32_t k = 0; k < 64; ++k) {
      int32_t v = data[srem(wadd(wmul(i, 3), k), len)];
      if (v & 1) continue;
      if (v < 0) break;
      sum = wadd(sum, v);
      ++count;
      if (sum > 1500) break;
    }
    out[i] = wadd(wmul(sum, 100), count);
  });
}
