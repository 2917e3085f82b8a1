// tests/kernels/nested_if3.cu, nested_elseif_chain.cu, nested_short_circuit.cu, nested_depth4.cu,
// nested_guarded_loads.cu, nested_state_machine.cu, divergent_while.cu: nested divergent control
// flow (integer arithmetic only). Every load reads the buffer only where the kernel does, so an
// index outside the guards shows up as an out-of-bounds reference.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("nested_if3") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto c = buffer<int32_t>(L, "c");
  auto out = buffer<int32_t>(L, "out");
  auto tag = buffer<int32_t>(L, "tag");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t x = a[i], y = b[i], z = c[i];
    int32_t r;
    if (x > 0) {
      if (y > z) {
        if (x & 1) {
          r = wadd(wmul(x, y), z);
          tag[i] = 1;
        } else {
          r = wsub(x ^ y, wmul(3, z));
          tag[i] = 2;
        }
      } else {
        r = wadd(wmul(wsub(z, y), x), x >> 2);
      }
    } else {
      if (z < 0) {
        r = wsub(wmul(x, z), y);
        tag[i] = 3;
      } else {
        r = wsub(wadd(y, z), x);
      }
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("nested_elseif_chain") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto aux = buffer<int32_t>(L, "aux");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t r;
    if (v < -500) {
      r = wadd(wmul(wneg(v), 3), i);
    } else if (v < 0) {
      if (v & 1) {
        r = wsub(wmul(v, v), 7);
        aux[i] = r;
      } else {
        r = (v >> 1) ^ i;
      }
    } else if (v < 250) {
      r = wadd(wmul(v, 5), 11);
    } else if (v < 600) {
      if ((i & 7) < 3) {
        r = wsub(v, wshl(i, 4));
        aux[i] = wneg(r);
      } else if (srem(v, 3) == 0) {
        r = sdiv(v, 3);
      } else {
        r = wadd(v, 1);
      }
    } else if (v < 900) {
      r = wmul(v & 0x3f, 17);
    } else {
      r = wsub(12345, v);
      aux[i] = v;
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("nested_short_circuit") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto tbl = buffer<int32_t>(L, "tbl");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t x = a[i], y = b[i];
    int32_t r;
    // The built-in && and || short-circuit like the kernel: tbl is read only where it is.
    if ((x > 0 && tbl[x & 63] > y) || y == 7) {
      if (x < 200 || ((y & 1) && tbl[y & 31] < 0)) {
        if (y > -100 && wadd(x, y) < 300)
          r = wsub(wmul(x, 3), y);
        else
          r = wsub(x, tbl[wadd(x, y) & 63]);
      } else {
        r = wadd(wmul(y, 2), tbl[x & 15]);
      }
    } else {
      r = wsub(wneg(x), i);
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("nested_depth4") {
  auto a = buffer<int32_t>(L, "a");
  auto b = buffer<int32_t>(L, "b");
  auto s_out = buffer<int32_t>(L, "s_out");
  auto t_out = buffer<int32_t>(L, "t_out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& th) {
    int32_t i = globalX(th);
    if (i >= n) return;
    int32_t x = a[i], y = b[i];
    int32_t s = i, t = 1;
    if (x > 0) {
      s = wadd(s, wadd(x, y));
      if (y > 0) {
        t = wmul(x, y);
        if (x > y) {
          s = wsub(s, wshl(y, 1));
          if ((x & 3) == 1) {
            t = wadd(t, wmul(s, 7));
            s ^= 0x55;
          } else {
            t = wsub(t, x);
            s = wadd(s, 13);
          }
        } else {
          t ^= y;
          if (srem(y, 5) == 2) {
            s = wsub(wmul(s, 3), t);
          } else {
            s = wadd(s, wmul(x, 2));
            t = wsub(t, 9);
          }
        }
      } else {
        t = wsub(y, x);
        if (wadd(x, y) > 0) {
          s = wadd(s, wmul(t, 5));
          if (x & 1) {
            t = wshl(t, 2);
            s = wsub(s, x);
          } else {
            s = wsub(s, 100);
            t = wadd(t, y);
          }
        } else {
          s = wsub(wmul(x, 4), s);
          if (y < -100) {
            t = wadd(wmul(t, 3), 1);
          } else {
            t ^= 0x0f0f;
            s = wadd(s, 3);
          }
        }
      }
    } else {
      s = wsub(s, y);
      if (y < x) {
        t = wsub(x, wmul(y, 2));
        if ((y & 1) == 0) {
          s ^= t;
          if (x < -60) t = wadd(t, 77);
          else s = wmul(s, 3);
        } else {
          s = wadd(s, t >> 1);
        }
      } else {
        t = wadd(y, 11);
        s = wadd(s, i & 7);
      }
    }
    s_out[i] = s;
    t_out[i] = t;
  });
}

PTXOPT_REFERENCE("nested_guarded_loads") {
  auto idx = buffer<int32_t>(L, "idx");
  auto tab = buffer<int32_t>(L, "tab");
  auto out = buffer<int32_t>(L, "out");
  auto hits = buffer<int32_t>(L, "hits");
  const int32_t m = L.scalar<int32_t>("m");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t k = idx[i];
    int32_t r = -1;
    if (k >= 0) {
      if (k < m) {
        int32_t v = tab[k];
        if (v > 0) {
          int32_t k2 = wsub(wadd(k, v), 1);
          if (k2 < m) {
            r = wadd(v, tab[k2]);
            hits[i] = wadd(k2, 1);
          } else {
            r = wmul(v, 2);
          }
        } else {
          r = wsub(wneg(v), k);
        }
      } else {
        r = wsub(k, m);
      }
    }
    out[i] = r;
  });
}

PTXOPT_REFERENCE("nested_state_machine") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto state_out = buffer<int32_t>(L, "state_out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t state = in[i] & 3;
    int32_t acc = 0;
    for (int32_t k = 0; k < 8; ++k) {
      int32_t d = in[srem(wadd(wadd(i, wmul(5, k)), 1), n)];
      if (state == 0) {
        if (d > 0) {
          state = 1;
          acc = wadd(acc, d);
        } else if (d < -500) {
          state = 3;
          acc = wsub(acc, 7);
        } else {
          acc ^= k;
        }
      } else if (state == 1) {
        if (d & 1) {
          if (acc > 1000) state = 2;
          else acc = wadd(acc, d >> 2);
        } else {
          state = 0;
        }
      } else if (state == 2) {
        acc = wsub(wmul(acc, 3), d);
        if (d < 0) state = 3;
      } else {
        if (d > 500) {
          state = 0;
          acc = sdiv(acc, 2);
        } else {
          acc = wsub(acc, 1);
        }
      }
    }
    out[i] = acc;
    state_out[i] = state;
  });
}

PTXOPT_REFERENCE("divergent_while") {
  auto in = buffer<int32_t>(L, "in");
  auto peak = buffer<int32_t>(L, "peak");
  auto steps = buffer<int32_t>(L, "steps");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t hi = v, cnt = 0, odd = 0;
    while (v != 1 && cnt < 200) {
      if (v & 1) {
        v = wadd(wmul(3, v), 1);
        ++odd;
        if (v > hi) {
          hi = v;
          peak[i] = hi;
        }
      } else {
        v >>= 1;
      }
      ++cnt;
    }
    steps[i] = wadd(wmul(cnt, 256), odd);
  });
}
