// tests/kernels/recursion.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
int32_t fib(int32_t k) { return k < 2 ? k : wadd(fib(k - 1), fib(k - 2)); }
uint32_t fact(uint32_t k) { return k <= 1 ? 1u : k * fact(k - 1); }
}  // namespace

PTXOPT_REFERENCE("recursion") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t d = in[i] & 15;
    out[i] = wadd(wmul(fib(d), 1000), static_cast<int32_t>(fact(static_cast<uint32_t>(d)) & 0x3ffu));
  });
}
