// switch-opt's instruction builders, shared by its lowerings (SwitchOpt.cpp's tables and trees,
// SwitchPredicated.cpp's predicated switches): each new instruction takes the root test's source
// position, and a run's predicate is an equality or an unsigned range check.
#pragma once

#include <cstdint>

#include "ptxopt/ir/Function.h"
#include "ptxopt/ir/Semantics.h"

#include "SwitchCosts.h"
#include "SwitchTree.h"

namespace ptxopt::switchopt {

// The selector's signed-or-unsigned type as the tree reads it, and its unsigned type.
ScalarType selectorType(const SwitchNode& root);
ScalarType unsignedType(const SwitchNode& root);
// A value of the tree's domain as an immediate of the selector's type.
Operand selectorImm(const SwitchNode& root, int64_t v);

// Gives `i` the root test's source position.
Instruction* place(const SwitchNode& root, Instruction* i);
// Appends `i` to `b`, at the root test's source position.
Instruction* append(BasicBlock* b, const SwitchNode& root, Instruction* i);

// Appends `setp.CMP.TY %p, ON, C` to `b`; returns %p.
RegId emitSetp(Function& f, BasicBlock* b, const SwitchNode& root, CmpOp cmp, ScalarType ty, RegId on, Operand c);
// Appends to `b` the predicate "the selector is in run `r`": an equality for one value, else
// the selector minus the run's first value, unsigned below the run's length.
RegId emitRunPredicate(Function& f, BasicBlock* b, const SwitchNode& root, const Run& r);
// Appends `OP.TY D, X, Y` to `b`.
void emitBinary(Function& f, BasicBlock* b, const SwitchNode& root, Opcode o, ScalarType ty, RegId d, Operand x, Operand y);

// Removes the root's test: its setp and branch, or a root brx.idx and its table's declaration
// when no other brx.idx names the table.
void removeRootNode(Function& f, BasicBlock* b, const SwitchNode& root);

}  // namespace ptxopt::switchopt
