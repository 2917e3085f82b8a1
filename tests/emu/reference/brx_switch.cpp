// tests/kernels/brx_switch.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("brx_switch") {
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
    switch (wadd(v, i) & 15) {
      case 0: r = wadd(v, a); break;
      case 1: r = wmul(v, a); break;
      case 2: r = wsub(v, wmul(a, 3)); break;
      case 3: r = (v ^ a) >> 2; break;  // arithmetic shift
      case 4: r = sdiv(v, a | 1); break;
      case 5: r = srem(v, (a & 255) + 1); break;
      case 6: r = wadd(aux[(i + 1) % n], v); break;
      case 7: r = wmul(static_cast<int32_t>(popc32(static_cast<uint32_t>(v))), a); break;
      case 8: r = wsub(std::max(v, a), std::min(v, a)); break;
      case 9: r = static_cast<int32_t>(brev32(static_cast<uint32_t>(v)) >> 5); break;
      case 10: r = wsub(in[(i + 7) % n], a); break;
      case 11: r = wshl(v, 3) | (a & 7); break;
      case 12: r = wadd(static_cast<int32_t>(clz32(static_cast<uint32_t>(a))), v); break;
      case 13: r = wmul(a < 0 ? wneg(a) : a, 17); break;
      case 14: r = wadd(v & a, v | a); break;
      default: r = wsub(wneg(v), 1); break;
    }
    out[i] = r;
  });
}
