// tests/kernels/meld_loop_pair.cu: each thread's weighted sum, written as the two sums it is
// (int arithmetic wraps).
#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
void meldLoopPairReference(RefLaunch& L) {
  auto sel = buffer<int32_t>(L, "sel");
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto out = buffer<int32_t>(L, "out");
  const int32_t shift = L.scalar<int32_t>("shift"), n1 = L.scalar<int32_t>("n1"), n2 = L.scalar<int32_t>("n2");
  const int32_t wa = L.scalar<int32_t>("wa"), wb = L.scalar<int32_t>("wb");
  forEachThread(L, [&](const Thread& t) {
    const int32_t g = globalX(t);
    int32_t sum = 0;
    if ((sel[g] >> shift) & 1) {
      for (int32_t i = 0; i < n1; ++i) sum = wadd(sum, wmul(a[g + i], wadd(wa, i)));
    } else {
      for (int32_t i = 0; i < n2; ++i) sum = wadd(sum, wmul(b[2 * g + i], wsub(wb, i)));
    }
    out[g] = sum;
  });
}
}  // namespace

PTXOPT_REFERENCE("meld_loop_pair.divergent") { meldLoopPairReference(L); }
PTXOPT_REFERENCE("meld_loop_pair.uniform") { meldLoopPairReference(L); }
