// Control-flow edges of a function, derived from its terminators and its block layout.
#pragma once

#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptxopt/ir/Function.h"

namespace ptxopt {

// The `.branchtargets` tables of a function, by name (string-pool id).
using BranchTargetTables = std::unordered_map<uint32_t, const Instruction*>;
BranchTargetTables collectBranchTargetTables(const Function& f);

// The successor edges that block number `layoutIndex` must have: bra (taken, plus fall-through
// when guarded), brx.idx (one Indexed edge per table entry), ret/exit/trap (none, or
// fall-through when guarded), anything else falls through. The last block has no
// fall-through edge. Labels that do not resolve are skipped (the verifier reports them).
std::vector<Edge> computeSuccessors(const Function& f, size_t layoutIndex, const BranchTargetTables& tables);

// Recomputes every block's successor and predecessor lists.
void buildCfg(Function& f);

// Recomputes the successor edges of block number `layoutIndex` after its terminator changed,
// and fixes the predecessor lists of the blocks it left and the blocks it now reaches.
void updateSuccessors(Function& f, size_t layoutIndex, const BranchTargetTables& tables);

// After blocks left the layout (`gone`: entered only from `b` and from each other) and `b`'s
// instructions changed: `b`'s successor edges anew, and the predecessor lists of the blocks `b`
// and `gone` led to, in the order buildCfg writes them (by layout). Exact where the lists were
// buildCfg's before; `b` must not end in brx.idx. A pass that collapses a region into its head
// calls it instead of rebuilding every block's edges.
void updateAfterCollapse(Function& f, BasicBlock* b, const std::vector<BasicBlock*>& gone);

// Labels that must stay in the function whatever its branches do: names a debug section refers
// to (labels like $L__tmp3 whose address it takes) and the entries of .branchtargets tables.
std::unordered_set<std::string_view> pinnedLabelNames(const Function& f, const BranchTargetTables& tables);

// The label operand of a `bra` (nullptr for anything else).
Operand* braTarget(Instruction& bra);
const Operand* braTarget(const Instruction& bra);

// The guarded `bra` that ends `b` (nothing after it, not even a scope brace) when `b` has its two
// edges, taken and fall-through; nullptr otherwise.
Instruction* conditionalBranch(BasicBlock& b);

// The label targets of a branch terminator: bra -> its label, brx.idx -> every table entry.
std::vector<uint32_t> branchTargetLabels(const Instruction& term, const BranchTargetTables& tables);

}  // namespace ptxopt
