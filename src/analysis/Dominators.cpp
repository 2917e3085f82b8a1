#include "ptxopt/analysis/Dominators.h"

#include <algorithm>

namespace ptxopt {

// Semi-NCA (Georgiadis, Tarjan): semidominators by Lengauer-Tarjan's eval with path
// compression, then each immediate dominator as the nearest common ancestor of the DFS parent
// and the semidominator. Iterative throughout, so deep CFGs do not exhaust the stack.
DomTree DomTree::build(uint32_t root, const std::vector<std::vector<uint32_t>>& succ,
                       const std::vector<std::vector<uint32_t>>& pred) {
  const uint32_t n = static_cast<uint32_t>(succ.size());
  constexpr uint32_t kNone = UINT32_MAX;
  DomTree t;
  t.root_ = root;
  t.idom_.assign(n, -1);
  t.children_.assign(n, {});
  t.depth_.assign(n, 0);
  t.pre_.assign(n, kNone);
  t.post_.assign(n, 0);

  // DFS preorder numbering from the root.
  std::vector<uint32_t> pre(n, kNone), vertex, parent(n, kNone);
  vertex.reserve(n);
  {
    std::vector<std::pair<uint32_t, size_t>> stack;
    pre[root] = 0;
    vertex.push_back(root);
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < succ[v].size()) {
        uint32_t w = succ[v][next++];
        if (pre[w] == kNone) {
          pre[w] = static_cast<uint32_t>(vertex.size());
          vertex.push_back(w);
          parent[w] = v;
          stack.emplace_back(w, 0);
        }
      } else {
        stack.pop_back();
      }
    }
  }
  const uint32_t count = static_cast<uint32_t>(vertex.size());

  // Semidominators, in preorder numbers. ancestor/label live on preorder numbers too.
  std::vector<uint32_t> semi(count), label(count), ancestor(count, kNone);
  for (uint32_t k = 0; k < count; ++k) semi[k] = label[k] = k;
  std::vector<uint32_t> path;
  auto eval = [&](uint32_t v) -> uint32_t {
    if (ancestor[v] == kNone) return v;
    // Compress the path from v to the root of its forest tree.
    path.clear();
    for (uint32_t x = v; ancestor[x] != kNone && ancestor[ancestor[x]] != kNone; x = ancestor[x]) path.push_back(x);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      uint32_t x = *it, a = ancestor[x];
      if (semi[label[a]] < semi[label[x]]) label[x] = label[a];
      ancestor[x] = ancestor[a];
    }
    return label[v];
  };
  for (uint32_t k = count; k-- > 1;) {
    uint32_t w = vertex[k];
    for (uint32_t v : pred[w]) {
      if (pre[v] == kNone) continue;  // a predecessor the root does not reach
      uint32_t u = eval(pre[v]);
      if (semi[u] < semi[k]) semi[k] = semi[u];
    }
    ancestor[k] = pre[parent[w]];
  }
  std::vector<uint32_t> idomPre(count, 0);
  for (uint32_t k = 1; k < count; ++k) {
    uint32_t d = pre[parent[vertex[k]]];
    while (d > semi[k]) d = idomPre[d];
    idomPre[k] = d;
  }
  for (uint32_t k = 1; k < count; ++k) {
    uint32_t w = vertex[k], d = vertex[idomPre[k]];
    t.idom_[w] = static_cast<int32_t>(d);
    t.children_[d].push_back(w);
  }
  for (auto& c : t.children_) std::sort(c.begin(), c.end());

  // Depths and DFS intervals of the tree for O(1) dominance queries.
  uint32_t clock = 0;
  std::vector<std::pair<uint32_t, size_t>> stack;
  stack.emplace_back(root, 0);
  t.pre_[root] = clock++;
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    if (next < t.children_[v].size()) {
      uint32_t c = t.children_[v][next++];
      t.depth_[c] = t.depth_[v] + 1;
      t.pre_[c] = clock++;
      stack.emplace_back(c, 0);
    } else {
      t.post_[v] = clock++;
      stack.pop_back();
    }
  }
  return t;
}

DominatorTree DominatorAnalysis::run(const Function&, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  DominatorTree d;
  if (cfg.size()) d.tree = DomTree::build(0, cfg.succ, cfg.pred);
  return d;
}

PostDominatorTree buildPostDominators(const CfgInfo& cfg, const std::vector<uint8_t>& ignored) {
  const uint32_t n = cfg.size();
  auto isIgnored = [&](uint32_t v) { return v < ignored.size() && ignored[v]; };
  PostDominatorTree pd;
  pd.virtualExit = n;
  // Reverse graph with the virtual exit as its root.
  std::vector<std::vector<uint32_t>> rsucc(n + 1), rpred(n + 1);
  for (uint32_t v = 0; v < n; ++v)
    for (uint32_t s : cfg.succ[v]) {
      if (isIgnored(s) && !isIgnored(v)) continue;
      rsucc[s].push_back(v);
      rpred[v].push_back(s);
    }
  auto link = [&](uint32_t v) {
    rsucc[n].push_back(v);
    rpred[v].push_back(n);
  };
  for (uint32_t v = 0; v < n; ++v)
    if (cfg.succ[v].empty()) link(v);
  // Blocks that reach no exit (infinite loops): anchor the deepest unreached block (last in
  // RPO) of each such region to the virtual exit, until every block reaches it.
  std::vector<uint8_t> reached(n + 1, 0);
  std::vector<uint32_t> work;
  auto flood = [&](uint32_t from) {
    work.push_back(from);
    reached[from] = 1;
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      for (uint32_t y : rsucc[x])
        if (!reached[y]) {
          reached[y] = 1;
          work.push_back(y);
        }
    }
  };
  flood(n);
  for (uint32_t v = n; v-- > 0;)
    if (!reached[v]) {
      link(v);
      pd.infiniteLoopAnchors.push_back(v);
      flood(v);
    }
  pd.tree = DomTree::build(n, rsucc, rpred);
  return pd;
}

PostDominatorTree PostDominatorAnalysis::run(const Function&, FunctionAnalysisManager& am) {
  return buildPostDominators(am.get<CfgAnalysis>());
}

DominanceFrontier DominanceFrontierAnalysis::run(const Function&, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const DomTree& dom = am.get<DominatorAnalysis>().tree;
  DominanceFrontier df;
  df.frontier.assign(cfg.size(), {});
  for (uint32_t b = 0; b < cfg.size(); ++b) {
    if (cfg.pred[b].size() < 2) continue;
    for (uint32_t p : cfg.pred[b]) {
      for (int32_t runner = static_cast<int32_t>(p); runner >= 0 && runner != dom.idom(b);
           runner = dom.idom(static_cast<uint32_t>(runner))) {
        auto& fr = df.frontier[static_cast<uint32_t>(runner)];
        // An earlier predecessor's walk passed here and went on up to idom(b): stop sharing it.
        if (!fr.empty() && fr.back() == b) break;
        fr.push_back(b);
      }
    }
  }
  for (auto& fr : df.frontier) {
    std::sort(fr.begin(), fr.end());
    fr.erase(std::unique(fr.begin(), fr.end()), fr.end());
  }
  return df;
}

}  // namespace ptxopt
