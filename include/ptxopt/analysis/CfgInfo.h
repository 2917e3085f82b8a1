// The reachable part of a function's CFG as a dense graph in reverse post-order.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"

namespace ptxopt {

struct CfgInfo {
  // Reachable blocks in reverse post-order; rpo[0] is the entry.
  std::vector<const BasicBlock*> rpo;
  // RPO number of each block, by block id; -1 for unreachable blocks.
  std::vector<int32_t> rpoIndex;
  // Successors and predecessors by RPO number (each neighbour once, reachable blocks only).
  std::vector<std::vector<uint32_t>> succ, pred;
  // Blocks no path from the entry reaches, in layout order.
  std::vector<const BasicBlock*> unreachable;

  uint32_t size() const { return static_cast<uint32_t>(rpo.size()); }
  int32_t index(const BasicBlock* b) const { return b->id() < rpoIndex.size() ? rpoIndex[b->id()] : -1; }
  bool reachable(const BasicBlock* b) const { return index(b) >= 0; }
};

struct CfgAnalysis {
  using Result = CfgInfo;
  static constexpr const char* kName = "cfg";
  static constexpr bool kCfgOnly = true;
  static CfgInfo run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
