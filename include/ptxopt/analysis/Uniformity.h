// Uniformity (divergence) analysis: which registers and which branches can differ between the
// lanes of one warp.
//
// Sources of divergence: %tid, %laneid, %lanemask_*, %clock*, %globaltimer (the special
// registers SpecialRegs.def marks Varying); results of atom, shfl, match, elect and of
// instructions kept verbatim; loads from .local; loads of .param other than the kernel's own
// parameters (a device function's arguments, call results); loads from global, shared or
// generic memory. Uniform: constants, kernel parameters, %ctaid, %ntid, %nctaid and the other
// uniform special registers, loads of kernel parameters and .const at uniform addresses, ldu at
// uniform addresses, and the warp-wide results of vote, redux, activemask and bar.red.
//
// Data dependence: a result is divergent when an operand is. A guarded instruction whose guard
// is divergent leaves its result divergent. Sync dependence: when a branch is divergent, every
// register written on a path from its successors to its immediate post-dominator is divergent
// at the joins of those paths: the blocks two of the successors reach, and the post-dominator.
// (When only one successor differs from the post-dominator, the post-dominator is the only
// join and the work is shared by all branches with that post-dominator, so a chain of early
// exits costs linear time.) Temporal divergence: when a divergent branch does not
// reconverge inside an enclosing loop, lanes leave that loop in different iterations, and
// every register the loop writes is divergent at the loop's exits. `bra.uni` is a hint the
// analysis reports as confirmed or contradicted; it is never trusted.
#pragma once

#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

class UniformityInfo {
 public:
  // Registers that may hold lane-varying values on entry to block `b` (by block id).
  const BitVector& divergentIn(const BasicBlock* b) const { return divIn_[b->id()]; }
  // Does the instruction write a lane-varying value?
  bool isDivergentDef(const Instruction* inst) const;
  // Is the block's terminator a branch (or guarded ret/exit/trap) whose decision can differ
  // between lanes? Unconditional branches are uniform.
  bool isDivergentBranch(const BasicBlock* b) const { return divBranch_[b->id()]; }
  // Registers divergent anywhere in the function.
  const BitVector& everDivergent() const { return ever_; }

 private:
  friend struct UniformityAnalysis;
  std::vector<BitVector> divIn_;
  std::vector<uint8_t> divBranch_;
  std::vector<const Instruction*> divergentDefs_;  // sorted by address
  BitVector ever_;
};

// Does `inst` produce a lane-varying result whatever its operands are?
bool isDivergenceSource(const Function& f, const Instruction& inst);
// Does `inst` produce a warp-uniform result whatever its operands are (vote, redux, ...)?
bool isUniformResult(const Instruction& inst);

// The blocks whose execution a divergent branch controls: reached from a successor of the
// branch before its immediate post-dominator, so the lanes of a warp may not all be there.
// Indexed by RPO number (CfgInfo); 1 for such a block.
std::vector<uint8_t> divergentlyReachedBlocks(FunctionAnalysisManager& am);

struct UniformityAnalysis {
  using Result = UniformityInfo;
  static constexpr const char* kName = "uniformity";
  static constexpr bool kCfgOnly = false;
  static UniformityInfo run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
