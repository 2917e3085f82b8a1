// switch-opt's copies of the function's end into the cases of a jump table on a uniform
// selector (docs/passes/switch-opt.md, "The function's end in each case", knob `tail-limit`).
//
// A warp runs exactly one case of a switch on a uniform selector, so each case's jump to a
// common end costs a BRA in the code and one in every run; copying an end that leaves the
// function (through jumps and fall-throughs to an unguarded ret or exit, with nothing that
// cannot be predicated) into the cases saves both at no cost in instructions run. What the end
// computes from values the cases do not touch (typically the output address) is computed once
// before the table instead, so that only the rest — usually the store and the ret — is copied.
// A divergent switch would run the copies once per target group instead of once after
// reconvergence, so the caller asks only for uniform selectors.
#pragma once

#include <cstdint>
#include <set>

#include "ptxopt/ir/Function.h"
#include "ptxopt/passes/Pass.h"
#include "ptxopt/support/BitVector.h"

#include "BlockOrder.h"

namespace ptxopt::switchopt {

// Ends each case of `targets` (a lowered jump table's blocks, entered from `root`'s range check
// or from `dispatch`'s brx.idx) that goes straight on to a function end with a copy of it, when
// at most `limit` instructions remain to copy after the move described below; returns how many
// cases it ended (counters `tails-copied`, `tail-instructions-moved`). `live` is what the root
// block left live before the lowering. Rebuilds the function's CFG.
unsigned copyFunctionEnd(Function& f, PassContext& ctx, const BlockSet& targets, BasicBlock* root, BasicBlock* dispatch,
                         const BitVector& live, int64_t limit);

}  // namespace ptxopt::switchopt
