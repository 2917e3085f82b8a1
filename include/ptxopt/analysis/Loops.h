// Natural loops with nesting, headers, latches and exits; irreducible regions.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxopt/analysis/Dominators.h"

namespace ptxopt {

struct Loop {
  uint32_t header = 0;               // RPO number
  std::vector<uint32_t> blocks;      // RPO numbers, sorted; includes the header
  std::vector<uint32_t> latches;     // sources of back edges to the header, sorted
  std::vector<std::pair<uint32_t, uint32_t>> exits;  // edges leaving the loop (from, to), sorted
  int32_t parent = -1;               // index of the enclosing loop in LoopInfo::loops
  std::vector<uint32_t> children;    // indices of directly nested loops
  uint32_t depth = 1;                // 1 for an outermost loop
};

// A strongly connected region with more than one entry: no single header dominates it.
struct IrreducibleRegion {
  std::vector<uint32_t> blocks;   // RPO numbers, sorted
  std::vector<uint32_t> entries;  // blocks of the region entered from outside it, sorted
};

struct LoopInfo {
  std::vector<Loop> loops;               // outer loops before the loops they contain
  std::vector<int32_t> innermost;        // by RPO number: innermost loop containing it, -1 if none
  std::vector<IrreducibleRegion> irreducible;
  // Retreating edges (to a DFS ancestor) whose target does not dominate their source.
  std::vector<std::pair<uint32_t, uint32_t>> irreducibleEdges;

  uint32_t loopDepth(uint32_t block) const {
    return innermost[block] < 0 ? 0 : loops[static_cast<uint32_t>(innermost[block])].depth;
  }
  bool isHeader(uint32_t block) const {
    return innermost[block] >= 0 && loops[static_cast<uint32_t>(innermost[block])].header == block;
  }
};

struct LoopAnalysis {
  using Result = LoopInfo;
  static constexpr const char* kName = "loops";
  static constexpr bool kCfgOnly = true;
  static LoopInfo run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
