// Which state space each memory access touches.
//
// An explicit space modifier decides (ld.global, st.shared::cta). A generic access is traced
// back from its address register through its reaching definitions -- cvta, mov, add/sub,
// mad, selp -- to a variable (.global/.shared/.local/.param/.const), to a kernel parameter
// (which holds a global address), or to something unknown; then it is "generic, could be
// shared or global".
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"

namespace ptxopt {

struct MemAccess {
  const Instruction* inst = nullptr;
  bool reads = false;
  bool writes = false;
  bool atomic = false;
  bool explicitSpace = false;              // the instruction names its space
  StateSpace space = StateSpace::Generic;  // Generic: not proven, could be shared or global
  std::string how;                         // how the space was found, for people
};

struct MemorySpaceInfo {
  std::vector<MemAccess> accesses;  // in layout order
  std::unordered_map<const Instruction*, uint32_t> index;
  const MemAccess* find(const Instruction* i) const {
    auto it = index.find(i);
    return it == index.end() ? nullptr : &accesses[it->second];
  }
};

// The operand of `inst` that holds the address it accesses; nullptr if none.
const Operand* memoryAddressOperand(const Instruction& inst);

struct MemorySpaceAnalysis {
  using Result = MemorySpaceInfo;
  static constexpr const char* kName = "memspace";
  static constexpr bool kCfgOnly = false;
  static MemorySpaceInfo run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
