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
  uint32_t numRegs = 0;

  // Calls f(inst, liveAfter) for each instruction of `b`, last to first, with the registers
  // live just after it.
  template <typename F>
  void walkBackward(const BasicBlock& b, F&& f) const;
};

// The registers `inst` surely overwrites (see above).
template <typename F>
void forEachKilledReg(const Instruction& inst, F&& f) {
  if (inst.hasGuard() || inst.numDefOperands() == 0) return;
  DefKind k = inst.info().defs;
  if (k != DefKind::First && k != DefKind::FirstIfRed) return;
  inst.visitLeaves(inst.operand(0), [&](const Operand& o) {
    if (o.isReg() && o.component() == Component::None) f(static_cast<RegId>(o.id));
  });
}

template <typename F>
void Liveness::walkBackward(const BasicBlock& b, F&& f) const {
  BitVector live = liveOut[b.id()];
  for (auto it = b.insts().rbegin(); it != b.insts().rend(); ++it) {
    const Instruction& inst = **it;
    if (inst.info().isPseudo()) continue;
    f(inst, static_cast<const BitVector&>(live));
    forEachKilledReg(inst, [&](RegId r) { live.reset(r); });
    inst.forEachUseReg([&](RegId r) { live.set(r); });
  }
}

struct LivenessAnalysis {
  using Result = Liveness;
  static constexpr const char* kName = "liveness";
  static Liveness run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
