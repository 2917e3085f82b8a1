// Uniformity (divergence) analysis: which registers and which branches can differ between the
// lanes of one warp (UniformityAnalysis) or between the threads of one CTA
// (CtaUniformityAnalysis).
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
//
// At CTA level a value is uniform when every thread of the CTA computes the same one: the
// sources are the above plus the special registers that may differ between warps (%warpid,
// %smid, ...: those SpecialRegs.def does not mark Fixed) and the warp-wide results of vote,
// redux and activemask, which differ between warps. bar.red without a thread count gives
// every thread of the CTA the same result. A branch on a warp-uniform, CTA-varying value
// sends whole warps different ways: a barrier on one side then pairs with whatever barrier
// the other warps reach (dead-sync needs this level).
#pragma once

#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

// Between which threads a value may differ: the lanes of one warp, or the threads of a CTA.
enum class UniformityLevel : uint8_t { Warp, Cta };

class UniformityInfo {
 public:
  // Registers that may hold lane-varying values on entry to block `b` (by block id).
  const BitVector& divergentIn(const BasicBlock* b) const { return divIn_[b->id()]; }
  // Does the instruction write a lane-varying value? (A linear search: for single questions.)
  bool isDivergentDef(const Instruction* inst) const;
  // Is the block's terminator a branch (or guarded ret/exit/trap) whose decision can differ
  // between lanes? Unconditional branches are uniform.
  bool isDivergentBranch(const BasicBlock* b) const { return divBranch_[b->id()]; }
  // Registers divergent anywhere in the function.
  const BitVector& everDivergent() const { return ever_; }

 private:
  friend UniformityInfo computeUniformity(const Function& f, FunctionAnalysisManager& am, UniformityLevel level);
  std::vector<BitVector> divIn_;
  std::vector<uint8_t> divBranch_;
  std::vector<const Instruction*> divergentDefs_;  // block by block in RPO
  BitVector ever_;
};

// Does `inst` produce a varying result (at `level`) whatever its operands are?
bool isDivergenceSource(const Function& f, const Instruction& inst, UniformityLevel level = UniformityLevel::Warp);
// Does `inst` produce a uniform result (at `level`) whatever its operands are (vote, redux,
// ... at warp level; bar.red at both)?
bool isUniformResult(const Instruction& inst, UniformityLevel level = UniformityLevel::Warp);

UniformityInfo computeUniformity(const Function& f, FunctionAnalysisManager& am, UniformityLevel level);

// The blocks whose execution a divergent branch controls: reached from a successor of the
// branch before its immediate post-dominator, so the lanes of a warp (the threads of a CTA,
// at CTA level) may not all be there. Indexed by RPO number (CfgInfo); 1 for such a block.
std::vector<uint8_t> divergentlyReachedBlocks(FunctionAnalysisManager& am, UniformityLevel level = UniformityLevel::Warp);

struct UniformityAnalysis {
  using Result = UniformityInfo;
  static constexpr const char* kName = "uniformity";
  static constexpr bool kCfgOnly = false;
  static UniformityInfo run(const Function& f, FunctionAnalysisManager& am) {
    return computeUniformity(f, am, UniformityLevel::Warp);
  }
};

struct CtaUniformityAnalysis {
  using Result = UniformityInfo;
  static constexpr const char* kName = "cta-uniformity";
  static constexpr bool kCfgOnly = false;
  static UniformityInfo run(const Function& f, FunctionAnalysisManager& am) {
    return computeUniformity(f, am, UniformityLevel::Cta);
  }
};

}  // namespace ptxopt
