// tests/kernels/switch_uniform_selector.cu, switch_in_loop.cu, switch_constants.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("switch_uniform_selector") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t r;
    switch (t.bx) {
      case 0: r = wadd(v, 3); break;
      case 1: r = wmul(v, 5); break;
      case 2: r = wsub(v, 11); break;
      case 3: r = v ^ 0x3c; break;
      case 4: r = wshl(v, 3); break;
      case 5: r = wadd(v >> 2, 7); break;
      case 6: r = wsub(wmul(v, v), 1); break;
      case 7: r = wadd(wneg(v), 13); break;
      case 8: r = (v & 0xff) | 0x100; break;
      case 9: r = wadd(wmul(v, 9), 2); break;
      default: r = 77; break;
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("switch_in_loop") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    uint32_t s = static_cast<uint32_t>(in[i]);
    int32_t acc = 0;
    for (int32_t k = 0; k < 16; ++k) {
      switch ((s >> 3) & 7) {
        case 0: acc = wadd(acc, 1); break;
        case 1: acc ^= 0x55; break;
        case 2: acc = wsub(acc, 7); break;
        case 3: acc = wadd(wmul(acc, 3), 1); break;
        case 4: acc = wadd(acc, k); break;
        case 5: acc ^= k << 4; break;
        case 6: acc = wsub(acc, k * 2); break;
        default: acc = wadd(acc, 100); break;
      }
      s = s * 1103515245u + 12345u;
    }
    out[i] = acc;
  });
}

PTXOPT_REFERENCE("switch_constants") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = srem(in[i], 16);
    int32_t a, b;
    switch (v) {
      case 0: a = 17; b = -3; break;
      case 1: a = 4; b = 90; break;
      case 2: a = -8; b = 1; break;
      case 3: a = 250; b = 7; break;
      case 5: a = 33; b = 33; break;
      case 6: a = 0; b = -40; break;
      case 7: a = 61; b = 2; break;
      case 8: a = -1; b = 1000; break;
      case 9: a = 12; b = 12; break;
      case 10: a = 5; b = -5; break;
      case 12: a = 71; b = 8; break;
      case 13: a = 9; b = 64; break;
      default: a = 1; b = 1; break;
    }
    out[i] = wadd(wmul(a, 1000), b);
  });
}
