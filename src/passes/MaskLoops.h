// mask-regions' divergent loops (knob `loops`): a loop whose exit diverges becomes a uniform
// loop under a mask. Separate from the regions because it shares only the guards' meaning and
// the vote with them (docs/passes/mask-regions.md, "Divergent loops").
#pragma once

#include <cstdint>

#include "ptxopt/analysis/AnalysisManager.h"
#include "ptxopt/ir/Function.h"
#include "ptxopt/passes/Pass.h"

namespace ptxopt {

// Converts every loop of `f` that qualifies, rebuilding the CFG after each; counts
// `loops-converted`, `loop-exits-masked`, `predicated-instructions` and `refused-loop-shape` and
// remarks every decision in `ctx`. `syncVotes`: vote.sync over an activemask (true), or the old
// vote.any (false). Returns whether anything changed.
bool maskDivergentLoops(Function& f, FunctionAnalysisManager& am, PassContext& ctx, bool syncVotes, int64_t maxSize);

}  // namespace ptxopt
