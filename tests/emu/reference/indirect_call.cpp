// tests/kernels/indirect_call.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
int32_t opAdd(int32_t a, int32_t b) { return wadd(a, b); }
int32_t opMul(int32_t a, int32_t b) { return wmul(a, b); }
int32_t opXor(int32_t a, int32_t b) { return wsub(a ^ b, 1); }
int32_t opMax(int32_t a, int32_t b) { return a > b ? a : wmul(b, 2); }
using OpFn = int32_t (*)(int32_t, int32_t);
const OpFn table[4] = {opAdd, opMul, opXor, opMax};
}  // namespace

PTXOPT_REFERENCE("indirect_call") {
  auto in = buffer<int32_t>(L, "in");
  auto sel = buffer<int32_t>(L, "sel");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    OpFn f = table[sel[i] & 3];
    int32_t r = f(in[i], i);
    OpFn g = table[wadd(sel[i], 1) & 3];
    out[i] = g(r, 3);
  });
}
