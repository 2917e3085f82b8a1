// What ptxas 13.0 (sm_90) does with the control flow it is given, and the expected-cost
// arithmetic the passes build on it: the one place a pass asks "would ptxas do this itself?" and
// "what does this branch cost a warp?". The figures were measured on ptxas's SASS
// (docs/passes/select.md, switch-opt.md, mask-regions.md); the ones a user may want to vary are
// knobs of their own, `--knob ptxas.NAME=VALUE`, read once per run and the same for every pass.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxopt/analysis/Profile.h"
#include "ptxopt/ir/Instruction.h"
#include "ptxopt/passes/Pass.h"

namespace ptxopt {

class PtxasModel {
 public:
  PtxasModel() = default;
  // The model with the `ptxas.*` knob values (defaults for those not given).
  explicit PtxasModel(const KnobValues& knobs);
  // The knobs `--knob ptxas.NAME=VALUE` sets (listed by --list-passes under "ptxas").
  static const std::vector<KnobSpec>& knobs();

  // ptxas if-converts a triangle or diamond itself, guarding every instruction and leaving no
  // branch, when each side has at most this many PTX instructions; 0: it converts none.
  int64_t sideLimit() const { return sideLimit_; }
  bool predicatesItself(uint64_t takenInsts, uint64_t fallInsts) const {
    return sideLimit_ > 0 && takenInsts <= uint64_t(sideLimit_) && fallInsts <= uint64_t(sideLimit_);
  }
  // Warp instructions a conditional branch costs, beyond the branch and its sides, in a warp
  // execution that splits: the reconvergence (BSSY/BSYNC) and the second side's dispatch.
  double divergenceCost() const { return divergenceCost_; }
  // What a jump table costs beyond its cases' jumps to the join (sm_90 SASS of dense_switch and
  // switch_uniform_selector): the range check and its branch, the index scaling, the table
  // load, the offset's sign and the BRX; on a divergent selector also BSSY and BSYNC.
  static unsigned tableOverhead(bool divergent) { return divergent ? 8 : 6; }
  // A load in the cost models' sense: it reads memory (an atomic is not a load) that is not a
  // parameter (`.param`, `.param::entry`, `.param::func`) or a constant: ptxas reads those as
  // constant-bank operands.
  static bool isLoad(const Instruction& i);
  // ptxas keeps one guarded load, or loads under different guards, predicated, but branches
  // around this many loads or more under one guard (with BSSY/BSYNC), next to a barrier or not
  // (tests/lit/passes/mask-regions/load-branch.test).
  static constexpr unsigned kLoadsBranchedAround = 2;
  // The SASS instructions ptxas issues for one integer add, sub, neg or logic operation, or one
  // mov or selp, of `type`: two for 64 bits (sm_90's integer datapath and registers are 32 bits
  // wide: IADD3 and IADD3.X, two LOP3s, two MOVs or SELs), one otherwise and for other opcodes.
  static unsigned issueWidth(Opcode op, ScalarType type);

 private:
  int64_t sideLimit_ = 8;
  double divergenceCost_ = 4;
};

// How the warp executions that reach a conditional branch go: the share that follows the taken
// edge (all lanes or some), the share that falls through (all or some), and the share that
// splits (in both).
struct BranchOdds {
  double taken = 0.5, fall = 0.5, split = 0;
  // From a profile's counts (executions > 0).
  static BranchOdds fromCounts(const BranchCounts& c);
  // Without a profile: a branch that may diverge splits in `prior` of its executions (at most
  // all) and goes either way evenly in the others; a warp-uniform one never splits.
  static BranchOdds fromPrior(bool mayDiverge, double prior);
};

// The expected warp instructions, per warp execution, of a branch whose sides issue `taken` and
// `fall` instructions and meet again after it: the branch, each side in the executions that go
// its way, and the model's divergence cost in those that split.
double expectedBranchCost(const PtxasModel& ptxas, const BranchOdds& odds, double taken, double fall);

// Whether the branch-free form costing `converted` on every execution is at least as cheap as
// `branching`, up to the rounding of the two sums (a tie converts).
inline bool convertedWins(double converted, double branching) { return converted <= branching + 1e-9; }

}  // namespace ptxopt
