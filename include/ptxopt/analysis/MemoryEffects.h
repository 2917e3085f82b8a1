// What code may do to the memory other threads see: read and write shared memory, read and
// write global memory, as four bits. The memory-space analysis places each access (a generic
// access it cannot place counts as both spaces); local, param and const accesses do not count;
// atomics and `red` read and write; an opaque instruction, an asynchronous memory operation
// (OpFlag::AsyncMemory: a cp.async, its commit and its wait, where the copy lands), a memory
// instruction without an address the analysis understands, and an unknown callee count as
// everything. Calls count as
// their callee's summary: computed for every function of a module, bottom-up over the call
// graph (recursion included), before any function is changed. dead-sync reads these.
//
// The other way round, a function's context: what its callers may do between the last
// barrier before a call and the call (`before`), and between the return and the next barrier
// (`after`). Every access for kernels' callers (none: 0), for functions other modules may call
// (.visible, .extern, .weak) and for functions whose address is taken; otherwise the union over
// the call sites, to a fixed point over the call graph (BarrierRegions.h gives each call site's
// accesses). Contexts are used only for functions entered by every thread of the CTA together
// (`uniformEntry`): kernels, and functions with known callers all of whose call sites are in
// CTA-uniform blocks (Uniformity.h, CTA level) of functions entered that way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ptxopt/analysis/MemorySpace.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt {

using MemEffects = uint8_t;
namespace MemEffect {
enum : MemEffects { None = 0, ReadShared = 1, WriteShared = 2, ReadGlobal = 4, WriteGlobal = 8, All = 15 };
}
// "reads shared, writes global" or "none".
std::string memEffectsText(MemEffects e);

// A function as its callers see it.
struct CallSummary {
  MemEffects effects = MemEffect::All;
  bool mayBarrier = true;  // it, or a function it calls, may execute a CTA barrier
  MemEffects before = MemEffect::All;  // what callers may do before a call, since their last barrier
  MemEffects after = MemEffect::All;   // and after it, until their next barrier
  // Every thread of the CTA calls it together: a barrier in a CTA-uniform block of it is one
  // barrier of every thread's sequence (true for kernels).
  bool uniformEntry = false;
};

struct CallSummaries {
  std::unordered_map<std::string, CallSummary> byName;  // functions with a body
  // The summary of what `call` calls; everything for an indirect call, an .extern callee and a
  // function without a body.
  CallSummary of(const Module& m, const Instruction& call) const;
  // The summary of function `f` (everything when there is none).
  CallSummary of(const Function& f) const;
};

// What code around `f`'s calls may do (CallSummary::before/after): nothing for a kernel, the
// summary's contexts for a function, every access without summaries.
CallSummary callingContext(const CallSummaries* s, const Function& f);

// The function a direct call names; empty for an indirect call or anything else.
std::string_view directCallee(const Module& m, const Instruction& inst);

CallSummaries computeCallSummaries(const Module& m);

struct MemEffectsOptions {
  bool countLocalParamConst = false;  // local, param and const accesses count as both spaces
  bool callsTouchNothing = false;   // every call counts as no access (unsound; a knob)
};

// The effects of one instruction. `calls` may be null: then a call counts as everything.
MemEffects memEffects(const Instruction& inst, const MemorySpaceInfo& mem, const Module& m, const CallSummaries* calls,
                      const MemEffectsOptions& options = {});

// Barriers that every thread of the CTA waits at: bar/barrier without .arrive, without a
// thread count, not guarded (bar.red included).
bool isFullCtaBarrier(const Instruction& inst);

}  // namespace ptxopt
