// switch-opt's value tables, LLVM's switch-to-lookup-table mapped onto PTX (docs/passes/
// switch-opt.md, "Value tables"): the plan. When every target of a switch only assigns
// constants (unguarded `mov REG, IMM`) and then goes on to one join block, or is that join block
// itself (the registers then keep what the root gave them, which must be constants too), the
// switch is a table lookup: one row per value of the span, a column per register, and one more
// row for the default when the default assigns constants as well (the lowering's `min.u32`
// sends every value out of range to it). SwitchOpt.cpp emits the table and the loads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptxopt/ir/Function.h"

#include "SwitchTree.h"

namespace ptxopt::switchopt {

struct Column {  // one register of every row
  RegId reg = kNoReg;
  unsigned bytes = 4;
  uint32_t offset = 0;
};
struct ValueTable {
  BasicBlock* join = nullptr;
  BasicBlock* branchDefault = nullptr;  // the default, when it is not a row of the table
  std::vector<Column> columns;
  std::vector<std::map<RegId, uint64_t>> rows;  // span rows, then the default's row if any
  uint32_t stride = 0;
  bool divergent = true;  // set by the caller: .global for a divergent selector, .const otherwise
};

// The table for the switch whose root test is `root` in `rootBlock` (its tree `tests`), cases
// `cases` over first..last and default `dflt`; nullopt with the reason in `why` when a target
// does more than assign constants, the targets go on to different blocks, a path keeps a
// register that is no constant, the module's addresses are not 64-bit, or the table would
// exceed `maxTableBytes`.
std::optional<ValueTable> planValueTable(const Function& f, const SwitchTreeReader& reader, BasicBlock* rootBlock, const SwitchNode& root,
                                         const NodesByBlock& tests, const std::map<int64_t, BasicBlock*>& cases,
                                         BasicBlock* dflt, int64_t first, int64_t last, int64_t maxTableBytes, std::string& why);

}  // namespace ptxopt::switchopt
