// Reaching definitions and def-use chains for (non-SSA) virtual registers.
//
// A definition site is one register written by one instruction. Registers written by exactly
// one instruction need no dataflow: dominance and reachability decide whether that definition
// reaches a use. Registers written by several instructions are renamed as in SSA construction
// (ReachingDefs.cpp), so the cost follows the size of the function and of the merge webs, not
// definitions times blocks. A guarded definition, or one that may leave part of the register
// unwritten, reaches without killing the others.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"

namespace ptxopt {

struct DefSite {
  const Instruction* inst = nullptr;
  RegId reg = kNoReg;
  bool kills = false;  // surely overwrites the whole register
};

struct UseSite {
  const Instruction* inst = nullptr;
  RegId reg = kNoReg;
};

class ReachingDefs {
 public:
  const std::vector<DefSite>& defs() const { return defs_; }
  // Definitions that can reach the read of `reg` by `inst`.
  std::span<const uint32_t> reaching(const Instruction* inst, RegId reg) const;
  // Can the value the register had on entry to the function (a parameter of the old .reg ABI,
  // or garbage) reach the read? True when some path from the entry to it writes no definition.
  bool entryValueReaches(const Instruction* inst, RegId reg) const;
  // Reads that definition `def` can reach.
  std::span<const UseSite> usesOf(uint32_t def) const {
    return {useSites_.data() + useStart_[def], useStart_[def + 1] - useStart_[def]};
  }

 private:
  friend struct ReachingDefsAnalysis;
  struct UseRange {
    RegId reg;
    uint32_t first, count;  // into reachingFlat_
    bool entry;             // the entry value can reach too
  };
  const UseRange* findUse(const Instruction* inst, RegId reg) const;
  std::vector<DefSite> defs_;
  std::vector<std::vector<uint32_t>> defsOfReg_;
  std::unordered_map<const Instruction*, std::pair<uint32_t, uint32_t>> usesOfInst_;  // range in uses_
  std::vector<UseRange> uses_;
  std::vector<uint32_t> reachingFlat_;
  std::vector<uint32_t> useStart_;  // usesOf(d) is useSites_[useStart_[d], useStart_[d + 1])
  std::vector<UseSite> useSites_;
};

struct ReachingDefsAnalysis {
  using Result = ReachingDefs;
  static constexpr const char* kName = "reaching-defs";
  static constexpr bool kCfgOnly = false;
  static ReachingDefs run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
