// Conditional regions (triangles, diamonds, extended diamonds) as the if-conversion passes see
// them: `predication`, `select` and `commoning` find them with one function and put them back
// into the layout with another.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Function.h"
#include "ptxopt/passes/Pass.h"
#include "ptxopt/passes/PtxasModel.h"

namespace ptxopt {

// A block H ending in `@[!]%p bra T` whose two ways are chains of single-entry, single-exit
// blocks (a side) that meet again at one block M. A triangle has one side empty.
struct IfRegion {
  BasicBlock* header = nullptr;
  Instruction* branch = nullptr;
  std::vector<BasicBlock*> taken, fall;  // the sides the branch jumps to and falls into, in order
  BasicBlock* merge = nullptr;
  std::string shape;  // triangle, extended-triangle, diamond, extended-diamond
};

// The region headed by `h`, if it has one: a side is at most `maxChain` blocks, and every block
// of a side falls through or ends in an unguarded `bra` (no ret, exit, trap inside). When M has
// no label, H must reach it by falling through the side blocks in the layout.
std::optional<IfRegion> findIfRegion(Function& f, BasicBlock* h, int64_t maxChain);

// The instructions of a side block that the side computes: all but the chain's own jump.
bool isChainJump(const BasicBlock& b, const Instruction& i);

// Whether the if-conversion cost models take the branch ending `b` as one that may diverge: the
// uniformity analysis says it may, and it is not a conditional `bra.uni`. With `bra.uni` the
// PTX's author asserts that the lanes of a warp agree; ptxas trusts that (no BSSY/BSYNC around
// it, measured with 13.0), and so do the cost models. The rewrites do not depend on it, and the
// uniformity analysis reports only what it proves (--print-analysis says when a hint disagrees).
bool costMayDiverge(const UniformityInfo& uni, const BasicBlock* b);
// "divergent", "uniform (bra.uni)" or "uniform", for the remarks.
const char* divergenceWord(bool mayDiverge, const Instruction& branch);

// The headers to try, inner regions first (the reachable blocks in post-order), and whether
// each block's terminator may diverge, taken from the uniformity analysis before anything
// changes (a conversion does not change the value a header's branch reads); a conditional
// `bra.uni` counts as uniform (costMayDiverge).
struct IfWalk {
  std::vector<BasicBlock*> order;
  std::unordered_map<const Instruction*, bool> divergent;
  bool mayDiverge(const Instruction* branch) const {
    auto d = divergent.find(branch);
    return d == divergent.end() || d->second;
  }
};
IfWalk ifWalk(FunctionAnalysisManager& am);

// The profile's counts for a conditional branch, when it ran at all; nullptr otherwise.
const BranchCounts* usableCounts(const PassContext& ctx, const Instruction& branch);

// The profile's decision between the branch form of a region whose sides cost `taken` and
// `fall` instructions and a branch-free form costing `converted` on every execution: the branch
// form's expected cost is expectedBranchCost with the odds of `c` (PtxasModel.h). `form` names
// the branch-free form in the remark ("predicated", "selecting").
struct ProfileDecision {
  bool convert = false;
  std::string why;
};
ProfileDecision decideByProfile(const PtxasModel& ptxas, const BranchCounts& c, double taken, double fall,
                                double converted, const char* form);

// Makes H straight-line code: H's instructions become `body` (the header's own instructions
// without the branch, and whatever replaces the sides), the side blocks leave the layout (they
// are added to `removed`), and H reaches M by falling through or, when M does not follow H, by
// a `bra.uni`. The caller rebuilds the CFG.
void replaceIfRegion(Function& f, const IfRegion& r, std::vector<Instruction*> body,
                     std::unordered_set<const BasicBlock*>& removed);

}  // namespace ptxopt
