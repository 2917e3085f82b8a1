// Liveness of virtual registers, one bit per register (RegId), per block.
//
// A use is any register an instruction reads (guards included). A definition kills a register
// only when it surely overwrites all of it: the instruction is unguarded and writes the whole
// register (opaque instructions' possible results and vector components do not kill).
#pragma once

#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

struct Liveness {
  // By block id (every block of the layout, reachable or not).
  std::vector<BitVector> liveIn, liveOut;
};

// The registers `inst` surely overwrites (see above).
template <typename F>
void forEachKilledReg(const Instruction& inst, F&& f) {
  if (inst.hasGuard() || inst.numDefOperands() == 0) return;
  if (signatureOf(inst.opcode()).isFree()) return;  // opaque results may be partial
  inst.visitLeaves(inst.operand(0), [&](const Operand& o) {
    if (o.isReg() && o.component() == Component::None) f(static_cast<RegId>(o.id));
  });
}

// Brings `lv` up to date after a rewrite that changed block `b` alone (its instructions and its
// successors; the blocks it made unreachable no longer count), with the CFG rebuilt. Exact: the
// new live-in set of `b` is computed and, where it only grew, the growth is carried to the
// blocks before it until nothing changes. Where a register left it, a fixed point reached from
// the old sets could keep that register alive around a loop: returns false, and the caller must
// compute the liveness afresh. Registers added since `lv` was computed are taken as not live on
// entry to any block (they must be defined in `b` before they are read).
bool updateLivenessAfterBlockChange(Liveness& lv, const BasicBlock& b);

struct LivenessAnalysis {
  using Result = Liveness;
  static constexpr const char* kName = "liveness";
  static constexpr bool kCfgOnly = false;
  static Liveness run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
