// tests/kernels/clang/switch_constants.cu and switch_in_loop.cu: the kernels of the nvcc files
// under clang names; their references are those kernels' (switch_kernels.cpp). And
// tests/kernels/clang/switch_bit_constants.cu.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_switch_bit_constants") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t a, b;
    switch (v) {
      case 1: case 3: case 5: case 7: case 9: case 11: a = 10; b = 1; break;
      case 2: case 4: case 6: case 8: case 10: a = 20; b = 2; break;
      default: a = v; b = 0; break;
    }
    out[i] = wadd(wmul(a, 1000), b);
  });
}

namespace {
::ptxopt::ref::Registrar clangSwitchConstants("clang_switch_constants", [](::ptxopt::ref::RefLaunch& L) {
  ::ptxopt::ref::registry().at("switch_constants")(L);
});
::ptxopt::ref::Registrar clangSwitchInLoop("clang_switch_in_loop", [](::ptxopt::ref::RefLaunch& L) {
  ::ptxopt::ref::registry().at("switch_in_loop")(L);
});
}  // namespace
