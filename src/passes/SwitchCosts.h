// switch-opt's costs (docs/passes/switch-opt.md, "Cost model" and "With a profile"): what ptxas
// spends on a jump table, the depth of a balanced search tree, and, with a branch profile, the
// expected warp instructions of each lowering of one switch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "ptxopt/passes/Pass.h"
#include "ptxopt/passes/PtxasModel.h"

#include "SwitchTree.h"

namespace ptxopt::switchopt {

// Consecutive case values with one target.
struct Run {
  int64_t lo, hi;
  BasicBlock* target;
};

// Leaves of a search tree test up to this many runs in a row.
inline constexpr size_t kLeafRuns = 3;

// Tests on the longest path of the balanced tree switch-opt builds over `n` runs.
unsigned bstDepth(size_t n);

// Expected warp instructions of each lowering over the profiled launch: a warp issues a test
// (setp and bra) each time it reaches it, and a case block (its instructions and the jump to
// the join) each time any of its lanes reach it, which is the count of the edge into it (all
// lanes or some). A table reaches the same case blocks after its fixed part (PtxasModel::tableOverhead); a
// value table and the predicated form cost the same on every execution of the root.
struct ProfileCosts {
  double tree = 0, table = 0, valueTable = 0, predicate = 0, bst = 0;
  // A jump table behind one test for the run most warp executions reach, when no test of the
  // tree ever split a warp (`hotRun` indexes the runs; -1: none).
  double hot = std::numeric_limits<double>::infinity();
  long hotRun = -1;
};

// The figures for the tree `tests` under `root` with its `runs`, or nullopt when the profile
// does not know every test (or the root is a brx.idx the profile has no counts for).
// `valueTableCost` and `predicateCost` are those forms' instructions per execution of the
// root, when the switch has them; `hotFirst` allows the hot-run option.
std::optional<ProfileCosts> profileCosts(const PassContext& ctx, const SwitchTreeReader& reader,
                                         const NodesByBlock& tests, const SwitchNode& root,
                                         const std::vector<Run>& runs, std::optional<double> valueTableCost,
                                         std::optional<double> predicateCost, bool hotFirst);

}  // namespace ptxopt::switchopt
