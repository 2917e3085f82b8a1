// tests/kernels/pred_large_diamond.cu, tests/kernels/pred_nested_diamond.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {

int32_t largeDiamond(int32_t v, int32_t shift) {
  int32_t a = v, b = v ^ 0x5bd1;
  if ((v >> shift) & 1) {
    a = wadd(wmul(a, 7), 3);
    a ^= a >> 3;
    a = wadd(a, wmul(b, 5));
    a = wsub(wshl(a, 2), b);
    a ^= 0x1234;
    b = wadd(b, a >> 1);
    b = wadd(wmul(b, 9), a);
    b ^= wshl(b, 4);
  } else {
    b = wsub(wmul(b, 11), 1);
    b ^= b >> 5;
    b = wadd(b, wmul(a, 3));
    a = wadd(wshl(b, 3), a);
    a ^= 0x4321;
    a = wsub(a, b >> 2);
    b = wsub(wmul(b, 13), a);
    a ^= wshl(a, 6);
  }
  return wadd(a, b);
}

int32_t nestedDiamond(int32_t v, int32_t shift) {
  int32_t r = v;
  if ((v >> shift) & 1) {
    r = wadd(wmul(r, 3), 1);
    if ((v >> (shift + 1)) & 1) {
      r ^= r >> 2;
      if ((v >> (shift + 2)) & 1)
        r = wadd(r, 17);
      else
        r = wsub(r, 5);
      r = wmul(r, 7);
    } else {
      r = wadd(r, wshl(v, 1));
      r ^= 0x55;
    }
    r = wsub(r, 9);
  } else {
    r = wsub(wmul(r, 5), 2);
    if ((v >> (shift + 1)) & 1) {
      r ^= wshl(r, 3);
      r = wadd(r, 11);
    } else {
      r = wsub(r, v >> 1);
      r ^= 0xaa;
    }
    r = wadd(r, 4);
  }
  return r;
}

template <typename Body>
void run(RefLaunch& L, Body body) {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t shift = L.scalar<int32_t>("shift"), n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    out[i] = body(in[i % n], shift);
  });
}

}  // namespace

PTXOPT_REFERENCE("pred_large_diamond.divergent") { run(L, largeDiamond); }
PTXOPT_REFERENCE("pred_large_diamond.uniform") { run(L, largeDiamond); }
PTXOPT_REFERENCE("pred_nested_diamond.divergent") { run(L, nestedDiamond); }
PTXOPT_REFERENCE("pred_nested_diamond.uniform") { run(L, nestedDiamond); }
