// Dominator and post-dominator trees (Semi-NCA, near-linear) and dominance frontiers.
//
// Nodes are the RPO numbers of CfgInfo. The post-dominator tree has one more node, a virtual
// exit, which post-dominates every block: it is the successor of every block without
// successors and, for each infinite loop (blocks from which no exit is reachable), of one
// block of that loop.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxopt/analysis/CfgInfo.h"

namespace ptxopt {

class DomTree {
 public:
  // Computes immediate dominators of the graph (succ/pred lists) from `root`; nodes that the
  // root does not reach get no dominator (-1).
  static DomTree build(uint32_t root, const std::vector<std::vector<uint32_t>>& succ,
                       const std::vector<std::vector<uint32_t>>& pred);

  uint32_t size() const { return static_cast<uint32_t>(idom_.size()); }
  uint32_t root() const { return root_; }
  // Immediate dominator; -1 for the root and for nodes the root does not reach.
  int32_t idom(uint32_t n) const { return idom_[n]; }
  const std::vector<uint32_t>& children(uint32_t n) const { return children_[n]; }
  uint32_t depth(uint32_t n) const { return depth_[n]; }
  bool inTree(uint32_t n) const { return n == root_ || idom_[n] >= 0; }
  // Reflexive: a node dominates itself.
  bool dominates(uint32_t a, uint32_t b) const {
    return inTree(a) && inTree(b) && pre_[a] <= pre_[b] && post_[b] <= post_[a];
  }

 private:
  uint32_t root_ = 0;
  std::vector<int32_t> idom_;
  std::vector<std::vector<uint32_t>> children_;
  std::vector<uint32_t> depth_, pre_, post_;
};

struct DominatorTree {
  DomTree tree;
};

struct PostDominatorTree {
  DomTree tree;
  uint32_t virtualExit = 0;  // the node number of the virtual exit (== number of blocks)
  // Blocks given an edge to the virtual exit because no exit is reachable from them.
  std::vector<uint32_t> infiniteLoopAnchors;
  // Immediate post-dominator of a block; virtualExit when it is the virtual exit.
  uint32_t ipdom(uint32_t n) const { return static_cast<uint32_t>(tree.idom(n)); }
};

// The post-dominator tree of `cfg` as if no edge from another block entered the blocks marked in
// `ignored` (by RPO number; a marked block's edges to marked blocks stay): the post-dominators
// of the other blocks are decided by their other paths alone. Every unmarked block that has
// successors must keep one.
PostDominatorTree buildPostDominators(const CfgInfo& cfg, const std::vector<uint8_t>& ignored = {});

struct DominanceFrontier {
  std::vector<std::vector<uint32_t>> frontier;  // by RPO number, sorted
};

struct DominatorAnalysis {
  using Result = DominatorTree;
  static constexpr const char* kName = "dom";
  static constexpr bool kCfgOnly = true;
  static DominatorTree run(const Function& f, FunctionAnalysisManager& am);
};

struct PostDominatorAnalysis {
  using Result = PostDominatorTree;
  static constexpr const char* kName = "postdom";
  static constexpr bool kCfgOnly = true;
  static PostDominatorTree run(const Function& f, FunctionAnalysisManager& am);
};

struct DominanceFrontierAnalysis {
  using Result = DominanceFrontier;
  static constexpr const char* kName = "domfrontier";
  static constexpr bool kCfgOnly = true;
  static DominanceFrontier run(const Function& f, FunctionAnalysisManager& am);
};

}  // namespace ptxopt
