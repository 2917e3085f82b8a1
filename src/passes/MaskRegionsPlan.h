// mask-regions' plans (docs/passes/mask-regions.md, "What it does"): the straight-line code
// that would replace one region, as steps over a table of mask values, and the checks and
// walks that build it from the region's entry block (buildPlan). Building a plan changes
// nothing; the pass (MaskRegions.cpp) weighs it (MaskRegionsCost.h) and carries it out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Function.h"

#include "GuardedCode.h"

namespace ptxopt::maskregions {

// A mask: an entry of the plan's value table (a fresh register or an existing predicate),
// possibly negated; id < 0 is every lane that entered the region.
struct MRef {
  int id = -1;
  bool neg = false;
  bool all() const { return id < 0; }
  bool operator==(const MRef& o) const { return id == o.id && neg == o.neg; }
};

struct Value {
  RegId existing = kNoReg;  // an existing register, read as it is
  ScalarType type = ScalarType::Pred;
  RegId fresh = kNoReg;     // allocated when the plan is carried out
};

// One step of the straight-line code that replaces the region.
struct Step {
  enum class Kind : uint8_t { Orig, And, Or, Mov, Activemask, Vote, SkipBranch, Label } kind = Kind::Orig;
  Instruction* inst = nullptr;  // Orig: the instruction; others: where the location comes from
  MRef guard;                   // Orig: the new guard (all: unchanged); SkipBranch: the vote result
  int dst = -1;                 // And, Or, Mov, Activemask, Vote: the value written
  MRef a, b;                    // operands (Vote: a is the mask, b.id the member mask or -1)
  int label = -1;               // SkipBranch, Label

  static Step op(Kind k, Instruction* at, int dst, MRef a = {}, MRef b = {}) {
    Step s;
    s.kind = k;
    s.inst = at;
    s.dst = dst;
    s.a = a;
    s.b = b;
    return s;
  }
  static Step orig(Instruction* i, MRef guard) {
    Step s;
    s.inst = i;
    s.guard = guard;
    return s;
  }
  static Step jump(Instruction* at, MRef guard, int label) {
    Step s;
    s.kind = Kind::SkipBranch;
    s.inst = at;
    s.guard = guard;
    s.label = label;
    return s;
  }
  static Step place(Instruction* at, int label) {
    Step s;
    s.kind = Kind::Label;
    s.inst = at;
    s.label = label;
    return s;
  }
};

struct Plan {
  std::vector<uint32_t> order;  // the region's blocks (RPO numbers) in their new order, E first
  std::vector<Value> values;
  std::vector<Step> steps;
  int labels = 0;
  unsigned size = 0;      // instructions of the region but E's and the jumps
  unsigned depth = 0;     // nesting depth of conditional branches
  unsigned branches = 0;  // conditional branches removed (E's included)
  unsigned extra = 0;     // instructions added: mask arithmetic, votes, skip branches
  unsigned skips = 0;
  unsigned uniformSkips = 0;
  unsigned liveMasks = 0;  // most fresh mask registers live at once
  unsigned conjunctions = 0;
  unsigned speculated = 0;  // instructions left unguarded (private temporaries)
  // The next three are the cost file's (notePtxasFigures, MaskRegionsCost.h).
  unsigned ptxasKept = 0;   // conditional branches ptxas would keep (ptxasKeptBranches)
  unsigned ptxasKeptLoads = 0;  // the same where it also keeps the branch around a loadBlock
  unsigned loadBlocks = 0;      // blocks after E with PtxasModel::kLoadsBranchedAround loads or more
  uint32_t exit = 0;        // X, the immediate post-dominator of E (RPO number)
  unsigned mergedDefs = 0;  // definitions in the region of registers live after it
  bool tree = false;        // every block after E has one predecessor: no two paths meet before X
};

// Every block reachable from `from`'s successors (from `from` itself when `self`) on paths that
// do not enter `stop`, each once, in the order a stack walk meets them. `stop` is never in the
// result; `from` is in it only when `self` or when a path leads back to it (a loop). Nothing
// else is checked: a path that ends at a block without successors simply ends there.
// `seen`, when given, is an all-zero array by RPO number that reach leaves all zero again.
std::vector<uint32_t> reach(const CfgInfo& cfg, uint32_t from, uint32_t stop, bool self,
                            std::vector<uint8_t>* seen = nullptr);

// A contribution to a block's mask: an ancestor's mask, or the edge (from, the block).
struct Contribution {
  bool edge = false;
  uint32_t from = 0;  // the ancestor, or the edge's source
};

// The arrays by RPO number that the plans of one walk share, sized at the first plan: a plan
// writes the entries of its own region's blocks only and clears them when it is done, so that a
// plan costs its region's size, not the function's (thrust_sort has functions of thousands of
// blocks and hundreds of branches).
struct PlanScratch {
  explicit PlanScratch(size_t blocks) : blocks(blocks) {}
  void prepare() {
    if (in.size() == blocks) return;
    in.assign(blocks, 0);
    seen.assign(blocks, 0);
    pos.assign(blocks, -1);
    indeg.assign(blocks, 0);
    nest.assign(blocks, 0);
    contrib.assign(blocks, {});
    mask.assign(blocks, MRef{});
  }
  size_t blocks;
  std::vector<uint8_t> in, seen;  // in the region (E included); reach's marks
  std::vector<int> pos;           // the place in the plan's order, or -1
  std::vector<uint32_t> indeg, nest;
  std::vector<std::vector<Contribution>> contrib;
  std::vector<MRef> mask;
};

// What a plan is built from: the function's analyses of the current walk and the pass's state.
// The definition sites of a function, computed when first asked for: a walk whose branches are
// all uniform builds no plan and needs none. The owner must ask (`get`) before it changes the
// function, so that every plan of a walk sees the function as the walk found it.
class LazyDefinitionSites {
 public:
  explicit LazyDefinitionSites(const Function& f) : f_(f) {}
  const DefinitionSites& get() const {
    if (!sites_) sites_.emplace(f_);
    return *sites_;
  }

 private:
  const Function& f_;
  mutable std::optional<DefinitionSites> sites_;
};

struct PlanInputs {
  const Function& f;
  const CfgInfo& cfg;
  const DominatorTree& dom;
  const PostDominatorTree& pdt;
  const UniformityInfo& uni;
  const Liveness& lv;
  const LazyDefinitionSites& defSites;  // GuardedCode.h, computed when a plan first asks
  const std::unordered_set<std::string_view>& pinned;  // labels a branch table or debug section names
  const std::unordered_set<const BasicBlock*>& touched;  // blocks of the regions converted in this walk
  const std::vector<size_t>& layout;  // by RPO number: the block's place in the layout (layoutByRpo)
  PlanScratch& scratch;               // one per walk
  bool speculate = true;  // knob `speculate`
  int syncVotes = 1;      // 1: vote.sync skips, 0: vote.any skips, -1: no skips
  int64_t bosccMin = 0;   // knob `boscc-min`
};

// By RPO number, each reachable block's place in the function's layout (computed once per walk,
// not per plan: it was a sixth of buildPlan on thrust_sort).
std::vector<size_t> layoutByRpo(const Function& f, const CfgInfo& cfg);

// Why the region at E is kept before any cost is weighed: the counter suffix (`refused-REASON`)
// and the remark's text.
struct Refusal {
  std::string reason, text;
  bool deferred = false;  // nothing to weigh in this walk (a block of the region was converted in
                          // it, or no block lies between E and X): the next walk asks again
};

// The plan for the region that starts at block `e` (an RPO number, a block ending in a
// conditional bra). nullopt with `refusal.reason` set when the region does not qualify; nullopt
// with `refusal.deferred` when it is no region to weigh in this walk (a block of it was converted
// already, or nothing lies between E and X). The cost file's figures are left at zero.
std::optional<Plan> buildPlan(uint32_t e, const PlanInputs& in, Refusal& refusal);

}  // namespace ptxopt::maskregions
