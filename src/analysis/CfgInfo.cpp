#include "ptxopt/analysis/CfgInfo.h"

#include <algorithm>

namespace ptxopt {

CfgInfo CfgAnalysis::run(const Function& f, FunctionAnalysisManager&) {
  CfgInfo info;
  info.rpoIndex.assign(f.blockIdBound(), -1);
  const BasicBlock* entry = f.entry();
  if (!entry) return info;

  // Iterative DFS for the post-order.
  std::vector<const BasicBlock*> post;
  std::vector<uint8_t> seen(f.blockIdBound(), 0);
  std::vector<std::pair<const BasicBlock*, size_t>> stack;
  stack.emplace_back(entry, 0);
  seen[entry->id()] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (next < b->succs().size()) {
      const BasicBlock* s = b->succs()[next++].to;
      if (!seen[s->id()]) {
        seen[s->id()] = 1;
        stack.emplace_back(s, 0);
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  info.rpo.assign(post.rbegin(), post.rend());
  for (size_t k = 0; k < info.rpo.size(); ++k) info.rpoIndex[info.rpo[k]->id()] = static_cast<int32_t>(k);
  uint32_t n = info.size();
  info.succ.resize(n);
  info.pred.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    for (const Edge& e : info.rpo[k]->succs()) {
      uint32_t s = static_cast<uint32_t>(info.rpoIndex[e.to->id()]);
      if (std::find(info.succ[k].begin(), info.succ[k].end(), s) == info.succ[k].end()) {
        info.succ[k].push_back(s);
        info.pred[s].push_back(k);
      }
    }
  }
  for (const BasicBlock* b : f.blocks())
    if (info.rpoIndex[b->id()] < 0) info.unreachable.push_back(b);
  return info;
}

}  // namespace ptxopt
