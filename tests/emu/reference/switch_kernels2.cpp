// tests/kernels/switch_holes.cu, switch_tid.cu, switch_sparse_wide.cu, switch_float_table.cu,
// switch_fallthrough.cu, switch_uniform_loop.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("switch_holes") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t r;
    switch (srem(v, 20)) {
      case 0: r = wadd(v, 7); break;
      case 1: r = wsub(wmul(v, 5), 3); break;
      case 3: case 4: case 11: r = v ^ 0x2a5; break;
      case 6: r = wadd(v >> 2, i); break;
      case 8: case 9: r = wmul(v, v); break;
      case 12: r = wsub(1000, v); break;
      case 14: r = wshl(v, 3); break;
      case 15: case 17: r = (v & 0xf0) | i; break;
      case 19: r = sdiv(v, 3); break;
      default: r = wsub(wneg(v), i); break;
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("switch_tid") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t sel = static_cast<int32_t>((t.tx >> 1) % 11u);
    int32_t r;
    switch (sel) {
      case 0: r = wadd(v, 1); break;
      case 1: r = wmul(v, 7); break;
      case 2: r = wsub(v, 100); break;
      case 3: r = v ^ 0x1234; break;
      case 4: r = v >> 3; break;
      case 5: r = wadd(wmul(v, 3), i); break;
      case 6: r = wshl(v & 0xff, 4); break;
      case 7: r = srem(v, 13); break;
      case 8: r = v < 100 ? wmul(v, 2) : wsub(v, 7); break;
      case 9: r = ~v; break;
      default: r = i; break;
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("switch_sparse_wide") {
  static const int32_t sparse_keys[9] = {-50, 3, 17, 100, 999, 4096, 70000, 1 << 20, 5};
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t s = srem(v, 9);
    if (s < 0) throw std::runtime_error("switch_sparse_wide: negative table index (the spec's input must be >= 0)");
    int32_t key = sparse_keys[s];
    int32_t r;
    switch (key) {
      case -50: r = wadd(v, 11); break;
      case 3: r = wmul(v, 9); break;
      case 17: r = v ^ 0x777; break;
      case 100: r = wsub(v, 100000); break;
      case 999: r = wadd(v >> 4, i); break;
      case 4096: r = wmul(v, v); break;
      case 70000: r = sdiv(v, 7); break;
      case 1 << 20: r = v | key; break;
      default: r = wadd(wmul(key, 3), v); break;
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("switch_float_table") {
  auto in = buffer<int32_t>(L, "in");
  auto fout = buffer<float>(L, "fout");
  auto iout = buffer<int32_t>(L, "iout");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float f;
    int32_t k;
    switch (srem(in[i], 10)) {
      case 0: f = 1.5f; k = 7; break;
      case 1: f = -0.25f; k = 13; break;
      case 2: f = 3.0e10f; k = -4; break;
      case 3: f = 0.1f; k = 100; break;
      case 4: f = -7.75f; k = 0; break;
      case 5: f = 1.0e-30f; k = 42; break;
      case 6: f = 2.5f; k = -99; break;
      case 7: f = -0.0f; k = 8; break;
      case 8: f = 65504.0f; k = 1 << 20; break;
      default: f = 9.0f; k = -1; break;
    }
    fout[i] = f;
    iout[i] = k;
  });
}

PTXOPT_REFERENCE("switch_fallthrough") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t r = i;
    switch (v & 7) {
      case 0: r = wadd(r, 3); [[fallthrough]];
      case 1: r ^= v; break;
      case 2: r = wmul(v, 5); [[fallthrough]];
      case 3: r = wsub(r, 11); [[fallthrough]];
      case 4: r = wadd(r, v >> 2); break;
      case 5: r = ~v; [[fallthrough]];
      case 6: r = wmul(r, 3); break;
      default: r = wadd(v, 1000); break;
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("switch_uniform_loop") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t acc = v;
    for (int32_t k = 0; k < 12; ++k) {
      switch (k % 6) {
        case 0: acc = wadd(acc, v); break;
        case 1: acc ^= k * 0x101; break;
        case 2: acc = wsub(wmul(acc, 3), k); break;
        case 3: acc = wsub(acc, v >> 1); break;
        case 4: acc = wshl(acc, 1) ^ v; break;
        default: acc = wadd(acc, 17); break;
      }
    }
    out[i] = acc;
  });
}
