// tests/kernels/printf.cu (entry printf_kernel): thread 0 of each CTA prints two lines.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("printf") {
  auto in = buffer<int32_t>(L, "in");
  auto fin = buffer<float>(L, "fin");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {  // CTAs in order, one printing thread per CTA
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = wmul(in[i], 3);
    if (t.tx == 0) {
      L.stdoutText += format("block %d thread %u: v=%d hex=%x\n", static_cast<int>(t.bx), t.tx, v,
                             static_cast<uint32_t>(v) * 0x9e3779b9u);
      L.stdoutText += format("f=%f big=%lld %s\n", static_cast<double>(fin[i]),
                             static_cast<long long>(static_cast<uint64_t>(static_cast<int64_t>(v)) << 40), "ptxopt");
    }
    out[i] = v;
  });
}
