// switch-opt's canonicalization of LLVM's case constants (docs/passes/switch-opt.md, "Case
// constants in test blocks"), and the reading of a constant `mov` that it and the value tables
// share.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ptxopt/ir/Function.h"
#include "ptxopt/passes/Pass.h"

namespace ptxopt::switchopt {

// The constant an unguarded `mov REG, IMM` of 16, 32 or 64 bits writes (float literals as their
// bits; NaN payloads refused), with its size in bytes; nullopt for anything else.
std::optional<std::pair<uint64_t, unsigned>> constantMov(const Instruction& i);

// LLVM often assigns a case's values in the test block that branches to the join
// (`mov.u32 %r42, -3; mov.u32 %r41, 17000; setp.eq.s32 %p, %sel, 0; @%p bra JOIN;`), where every
// path on the other edge assigns them again; such a block is no tree node. sinkCaseConstants
// moves the leading constant movs of a block that is a tree node without them into a new block
// C on the edge where they are live (`@%p bra C; ... C: movs; bra JOIN`), when they are dead on
// the other edge and a neighbouring test (the predecessor's, or the other successor's) tests the
// same selector; C is then a case that only assigns constants. It rebuilds the CFG and
// invalidates the analyses when it moves anything (counter `sunk-case-constants`).
struct SunkConstants {
  BasicBlock *b, *c;
  Instruction* bra;
  uint32_t target;                     // the bra's label before
  std::vector<Instruction*> movs;
  std::vector<Instruction*> original;  // the test block's instructions before
};
std::vector<SunkConstants> sinkCaseConstants(Function& f, FunctionAnalysisManager& am, PassContext& ctx);

// Gives each test block that is still reachable, still the only way into its C and as the
// sinking left it (no lowering took its tree) its instructions back, and removes C; returns how
// many it restored (counter `sunk-case-constants-restored`). Rebuilds the CFG and invalidates
// the analyses.
size_t restoreUnused(Function& f, FunctionAnalysisManager& am, PassContext& ctx, const std::vector<SunkConstants>& sunk);

}  // namespace ptxopt::switchopt
