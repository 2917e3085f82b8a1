// tests/kernels/clang/switch_constants.cu and switch_in_loop.cu: the kernels of the nvcc files
// under clang names; their references are those kernels' (switch_kernels.cpp).
#include "RefUtil.h"

namespace {
::ptxopt::ref::Registrar clangSwitchConstants("clang_switch_constants", [](::ptxopt::ref::RefLaunch& L) {
  ::ptxopt::ref::registry().at("switch_constants")(L);
});
::ptxopt::ref::Registrar clangSwitchInLoop("clang_switch_in_loop", [](::ptxopt::ref::RefLaunch& L) {
  ::ptxopt::ref::registry().at("switch_in_loop")(L);
});
}  // namespace
