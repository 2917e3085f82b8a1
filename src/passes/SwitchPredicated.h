// switch-opt's predicated switches (docs/passes/switch-opt.md, "Predicated switches", knobs
// `speculate` and `case-masks`): the plan and the lowering.
//
// When every target leads to one join block through blocks of predicable instructions (a
// chain: a case may fall through into the next), the switch becomes straight-line code: a
// predicate per target (an equality or range check per run, or-ed over the target's runs),
// the default's as none of them, then each block of the chains guarded by the or of the
// predicates of the targets whose chain holds it, a block after the blocks that lead into
// it. A thread runs exactly the blocks of its own target's chain, in order. Every predicate
// is computed before any block runs (a block may overwrite the selector). Whether a switch is
// predicated is SwitchChoice.cpp's decision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Function.h"

#include "BlockOrder.h"
#include "SwitchCosts.h"
#include "SwitchTree.h"

namespace ptxopt::switchopt {

struct PredicatedSwitch {
  BasicBlock* join = nullptr;
  std::vector<BasicBlock*> blocks;               // the chains' blocks, in the order they run
  BlockMap<BlockSet> by;                         // block -> the targets whose chain holds it
  int64_t size = 0;                              // instructions in the blocks
  std::set<const Instruction*> unguarded;        // private temporaries, run for every lane
};

// The plan for the switch whose root test ends `rootBlock` (its tree `tests`), with `runs` and
// default `dflt`; nullopt with the reason in `why` when the cases do not lead through
// straight-line code to one block outside the switch, or do nothing. With `speculate`, the
// instructions that may run for every lane (`unguarded`): see planPredicated in the .cpp.
std::optional<PredicatedSwitch> planPredicated(Function& f, const SwitchTreeReader& reader, BasicBlock* rootBlock,
                                               const NodesByBlock& tests, const std::vector<Run>& runs, BasicBlock* dflt,
                                               const Liveness& lv, bool speculate, std::string& why);

// How a predicated switch computes its predicates. With `bit`, the selector's bit
// `1 << (selector - first)` is computed once (a 32-bit selector whose runs span at most 32
// values; a value outside the span shifts the 1 out, since PTX clamps a shift by 32 or more to
// 32, and a selector below `first` reads as a large unsigned amount), and the `masked`
// targets and the default test it against their case masks: an `and` and a `setp` against 0,
// which ptxas fuses into one LOP3 writing the predicate. The other targets test their runs.
struct PredicatePlan {
  bool bit = false;
  int64_t first = 0;
  BlockSet masked;
  unsigned cost = 0;  // instructions of the predicates, the ors of shared blocks' guards included
};

// The cheaper of the two ways (ties keep the runs): runs only, where a target costs a setp per
// run, a sub per run of several values and an or per extra run, and the default its form's
// count; or the shared bit (the sub and the shl), where each target whose runs cost two or
// more is masked and the default tests the mask of every case (only with `caseMasks`).
PredicatePlan planPredicates(const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt, const PredicatedSwitch& ps,
                             bool caseMasks);

// Replaces the root's test (the block at `rootIndex`) with the predicates of
// planPredicates(root, runs, dflt, ps, caseMasks), the guarded copies of the chains' blocks and
// a jump to the join. The original blocks stay (branch-opt deletes those nothing else reaches).
void emitPredicated(Function& f, size_t rootIndex, const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt,
                    const PredicatedSwitch& ps, bool caseMasks);

}  // namespace ptxopt::switchopt
