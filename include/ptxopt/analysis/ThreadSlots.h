// Accesses that touch a slot of their own thread only (dead-sync's `private-slots`).
//
// An address is a "function of the thread" when, through unique reaching definitions, it is
// built from %tid.x, immediates, variable addresses, the kernel's parameters and special
// registers that are fixed for a CTA (%ctaid, %ntid, ...) by add, sub, mul, shl, mad, mov and
// integer extension. Such a value is the same wherever and whenever a thread computes it, so
// two accesses whose addresses are the same function of the thread up to a constant touch,
// in every thread, the same bytes every time.
//
// The analysis writes each such address as  F + c * T + k  modulo 2^w: F the part that is the
// same for every thread of the CTA, T a thread atom (%tid.x itself, or the 64-bit extension of
// a 32-bit function of %tid.x), c and k constants. Two threads' values of T differ by at least
// `spacing` and at most `reach`, so their addresses differ (modulo 2^w) by at least
// |c| * spacing -- the stride -- as long as |c| * reach < 2^(w-1). Accesses with the same
// space, F, T and c form a class; when every access of the class lies in one window
// [lo, hi) of offsets k with hi - lo <= stride, the windows of two threads never overlap: no
// thread touches another thread's bytes through the class.
//
// %tid.x identifies a thread of the CTA only when the CTA is one-dimensional, which the code
// shows by `.reqntid X` or `.reqntid X, 1, 1` (a launch with another shape fails). `.maxntid`
// bounds the number of threads only, so a kernel with `.maxntid 128, 1, 1` may still run as a
// 64 x 2 block in which threads (x, 0) and (x, 1) share s[x]. Without .reqntid nothing is
// private.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"
#include "ptxopt/ir/Types.h"

namespace ptxopt {

struct SlotClass {
  StateSpace space = StateSpace::Generic;
  std::string form;     // "s + 4*%tid.x" and the like, for remarks
  uint64_t stride = 0;  // bytes between two threads' slots (at least)
  int64_t lo = 0, hi = 0;  // the window of offsets the class's accesses cover
  bool privateSlots = false;  // hi - lo <= stride: each thread touches its own bytes only
  uint32_t accesses = 0;
};

struct ThreadSlots {
  std::vector<SlotClass> classes;
  std::unordered_map<const Instruction*, uint32_t> classOf;  // accesses with a thread-function address
  bool oneDimensional = false;                               // the kernel declares .reqntid X, 1, 1
  // The private class of `inst`, or -1 when it may touch another thread's bytes.
  int privateClass(const Instruction* inst) const {
    auto it = classOf.find(inst);
    return it != classOf.end() && classes[it->second].privateSlots ? static_cast<int>(it->second) : -1;
  }
};

struct ThreadSlotsAnalysis {
  using Result = ThreadSlots;
  static constexpr const char* kName = "thread-slots";
  static constexpr bool kCfgOnly = false;
  static ThreadSlots run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
