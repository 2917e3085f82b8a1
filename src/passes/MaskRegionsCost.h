// mask-regions' costs (docs/passes/mask-regions.md, "When it refuses" and the text after the
// "Knobs" table): what ptxas would do with a region's branches itself (ptxasKeptBranches), the
// expected instructions of the straight-line and the branching form (expectedCosts), and the
// decision between them (decideRegion). The expected instructions of both forms decide, from
// the profile's counts with --profile-use and otherwise with every branch that may diverge
// assumed to split in divergence-prior of its executions; the knobs' limits and the checks for
// what ptxas or the lanes do better come first. Nothing here changes the function or reports
// anything: the pass (MaskRegions.cpp) counts and remarks what decideRegion answers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Profile.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/passes/Pass.h"
#include "ptxopt/passes/PtxasModel.h"

#include "MaskRegionsPlan.h"
#include "ThreadIndexFacts.h"

namespace ptxopt::maskregions {

// The block's loads (PtxasModel::isLoad).
unsigned loadsIn(const BasicBlock& b);

// The instructions of a block that both forms issue: not its closing branch (a conditional
// one is costed on its own, a jump disappears) and no pseudo statement.
unsigned issued(const BasicBlock& b);

// How many of the region's conditional branches ptxas would keep. ptxas if-converts a
// triangle or diamond whose sides are single blocks of at most ptxas.side-limit instructions
// (measured: docs/passes/select.md). This replays that on the region's blocks, repeatedly, so
// that a converted inner level makes its enclosing one a triangle or diamond too: a branch it
// collapses costs the branching form nothing that the straight-line form saves. ptxas itself
// does not repeat; it folds nested conditions with one destination (`a && b`), which the
// repeat stands in for, and otherwise keeps the outer branch: the count can be lower than
// what ptxas keeps in nested regions (probes on the pass page). With `withLoads`, a side of
// PtxasModel::kLoadsBranchedAround loads or more is not collapsed either. Reads the plan's
// `order` and `branches`.
unsigned ptxasKeptBranches(const Plan& p, const CfgInfo& cfg, const PtxasModel& ptxas, bool withLoads);

// Fills the plan's figures about ptxas: ptxasKept, ptxasKeptLoads and loadBlocks.
void notePtxasFigures(Plan& p, const CfgInfo& cfg, const PtxasModel& ptxas);

// Do both ways of E's branch (the blocks only one of them reaches before X) hold long-latency
// arithmetic? Predicated, the region runs both latency chains for every lane.
bool longLatencyBothWays(uint32_t e, uint32_t x, const CfgInfo& cfg);

// The pass's knobs that the decision reads (MaskRegions.cpp reads them; the defaults here
// are only the pass's member defaults, not the knobs').
struct CostKnobs {
  int64_t maxSize = 0, maxDepth = 0, maxLiveMasks = 0, maxExtra = 0;
  double treeDivergenceCost = 1.5;  // tree-divergence-cost
  double prior = -1;                // divergence-prior; negative: no model
  double priorMargin = 0;           // prior-margin
  bool ptxasTriangleCheck = true, extraLatencyCheck = true, loadBranchCheck = true, thresholdCheck = true;
};

// The expected instructions per warp execution of E of the straight-line and the branching
// form, in that order. With counts for E's branch (`c`) every branch of the region takes its
// own counts where the profile (ctx.branchCounts) has them; without, each branch the
// uniformity analysis says may diverge splits in `divergence-prior` of the executions that
// reach it and goes either way evenly in the others, and a warp-uniform one never splits. Each
// block runs in the warp executions that reach it (a join after a divergent branch once), each
// conditional branch costs one more and divergence-cost more when it splits
// (tree-divergence-cost in a tree-shaped region with a profile). The straight-line form runs
// everything, the added instructions included, on every entry.
std::pair<double, double> expectedCosts(const Plan& p, const CfgInfo& cfg, const BranchCounts* c,
                                        const PassContext& ctx, const UniformityInfo& uni, const CostKnobs& k);

// What decideRegion answers: convert, or keep with the counter suffix (`refused-REASON`) and
// the text that follows the plan's in the remark. `model` names the expected-cost model
// ("profile" or "prior") when it made the decision (the pass counts MODEL-accepted or
// MODEL-refused); null when a limit or a check decided first, or no model ran.
struct Decision {
  bool convert = false;
  const char* reason = "";
  std::string why;
  const char* model = nullptr;
};

// Whether to convert the region of plan `p`: the knobs' limits, then (without a profile) the
// threshold and long-latency checks, the load-branch and ptxas-triangle checks, then the
// expected costs (with a profile, or a non-negative divergence-prior).
Decision decideRegion(const Plan& p, const CfgInfo& cfg, const UniformityInfo& uni, const ThreadIndexFacts& threadIndex,
                      const PassContext& ctx, const CostKnobs& k);

}  // namespace ptxopt::maskregions
