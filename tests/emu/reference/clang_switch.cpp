// tests/kernels/clang/switch.cu (clang++-14 PTX): the dense switch becomes a compare tree (no
// brx.idx), (v + i) % 10 a mul.hi-based remainder (truncation toward zero), __clz one clz.b32
// (32 for 0) and the default -v - 1 a not.b32.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_switch") {
  auto in = buffer<int32_t>(L, "in");
  auto aux = buffer<int32_t>(L, "aux");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t a = aux[i];
    int32_t r;
    switch (srem(wadd(v, i), 10)) {
      case 0: r = wadd(v, a); break;
      case 1: r = wmul(v, a); break;
      case 2: r = wsub(v, wmul(a, 3)); break;
      case 3: r = (v ^ a) >> 2; break;
      case 4: r = sdiv(v, a | 1); break;
      case 5: r = wadd(aux[srem(wadd(i, 1), n)], v); break;
      case 6: r = wmul(static_cast<int32_t>(popc32(static_cast<uint32_t>(v))), a); break;
      case 7: r = wsub(in[srem(wadd(i, 7), n)], a); break;
      case 8: r = wadd(static_cast<int32_t>(clz32(static_cast<uint32_t>(a))), v); break;
      default: r = wsub(wneg(v), 1); break;
    }
    switch (a) {
      case -7: r = wadd(r, 1000); break;
      case 0: r = 0; break;
      case 500: r = wmul(r, 2); break;
      default: break;
    }
    out[i] = r;
  });
}
