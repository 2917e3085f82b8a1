// The IR verifier: run on demand (`ptxopt --verify`) and after every pass with
// `--verify-each`.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include <string>
#include <string_view>

#include "ptxopt/ir/Module.h"
#include "ptxopt/support/Diagnostics.h"

namespace ptxopt {

// Checks one function:
//  * layout: a terminator is the last instruction of its block (pseudo statements aside);
//    { } scopes balance; every instruction's parent is its block;
//  * edges: successor and predecessor lists are exactly what the terminators and the layout
//    imply (fall-through is an explicit edge to the next block);
//  * labels resolve to blocks of the function that are visible from the use; brx.idx names a
//    .branchtargets table;
//  * registers are declared and visible where used; guards are .pred;
//  * every instruction has one of the operand shapes its signature in Opcodes.def allows: the
//    operand count, which operands are written (registers, never immediates), addresses,
//    labels, vectors and pairs where the shape has them, registers whose type fits (same size,
//    or wider for ld/st/cvt; float operands take float or bit registers, integer ones integer
//    or bit registers, predicates predicates), immediates of the right kind, special
//    registers and names only where allowed, the type modifiers the shape needs, and
//    addresses that name a variable of the instruction's state space;
//  * symbols name a variable, parameter, function, prototype or call-target table.
// Each problem is reported to `diags` as an error at the instruction's line; `context` (for
// example "after pass branch-opt") prefixes each message. Returns true when nothing was found.
// The names of a module's global variables and functions, which every function may use.
// Verifying many functions of one module (verifyModule, --verify-each), collect them once.
struct ModuleSymbols {
  explicit ModuleSymbols(const Module& m);
  std::unordered_set<uint32_t> names;
  std::unordered_map<uint32_t, uint32_t> spaces;  // global variables: a bit per StateSpace
};
bool verifyFunction(const Function& f, DiagEngine& diags, std::string_view context = {}, const ModuleSymbols* symbols = nullptr);
bool verifyModule(const Module& m, DiagEngine& diags, std::string_view context = {});

}  // namespace ptxopt
