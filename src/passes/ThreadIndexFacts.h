// Facts about how a branch's condition varies across the lanes of a warp, read from the
// registers a function writes exactly once: whether it compares a lane-linear value (%tid.x
// plus warp-uniform terms) with a warp-uniform bound, which splits at most one warp of a CTA,
// or tests only bits 5 and up of %tid.x, which splits none. Without a profile, if-conversion
// of such a branch makes every warp run both ways for the sake of at most one that splits
// (mask-regions' and predication's threshold-check).
#pragma once

#include <unordered_map>
#include <vector>

#include "ptxopt/ir/Function.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

class ThreadIndexFacts {
 public:
  // `blocks`: the function's reachable blocks; `everDivergent`: the uniformity analysis's
  // registers that may differ between the lanes of a warp anywhere in the function.
  ThreadIndexFacts(const std::vector<const BasicBlock*>& blocks, const BitVector& everDivergent);

  // Is the branch's predicate an integer comparison of a lane-linear value with a uniform one?
  bool thresholdBranch(const Instruction& br) const;
  // Does the branch test only bits 5 and up of %tid.x?
  bool highTidBitsBranch(const Instruction& br) const;

 private:
  // The single, unguarded definition of a plain register operand; null for anything else.
  const Instruction* definition(const Operand& o) const;
  // The integer setp (three operands) that defines the branch's guard, if there is one.
  const Instruction* integerSetp(const Instruction& br) const;
  bool uniformOperand(const Operand& u) const;
  bool laneLinear(const Operand& o, int depth) const;
  bool isTidX(const Operand& o, int depth = 0) const;

  std::unordered_map<RegId, const Instruction*> uniqueDef_;  // nullptr: more than one definition
  BitVector everDivergent_;  // a copy: the facts outlive the analysis results of their walk
};

}  // namespace ptxopt
