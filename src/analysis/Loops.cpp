#include "ptxopt/analysis/Loops.h"

#include <algorithm>

namespace ptxopt {

namespace {

// Strongly connected components (Tarjan, iterative); returns the component number of each node.
std::vector<uint32_t> stronglyConnected(const std::vector<std::vector<uint32_t>>& succ, uint32_t& count) {
  const uint32_t n = static_cast<uint32_t>(succ.size());
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> index(n, kNone), low(n, 0), comp(n, kNone), stack;
  std::vector<uint8_t> onStack(n, 0);
  std::vector<std::pair<uint32_t, size_t>> call;
  uint32_t clock = 0;
  count = 0;
  for (uint32_t s = 0; s < n; ++s) {
    if (index[s] != kNone) continue;
    call.emplace_back(s, 0);
    index[s] = low[s] = clock++;
    stack.push_back(s);
    onStack[s] = 1;
    while (!call.empty()) {
      auto& [v, next] = call.back();
      if (next < succ[v].size()) {
        uint32_t w = succ[v][next++];
        if (index[w] == kNone) {
          index[w] = low[w] = clock++;
          stack.push_back(w);
          onStack[w] = 1;
          call.emplace_back(w, 0);
        } else if (onStack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
      } else {
        uint32_t done = v;
        call.pop_back();
        if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
        if (low[done] == index[done]) {
          uint32_t w;
          do {
            w = stack.back();
            stack.pop_back();
            onStack[w] = 0;
            comp[w] = count;
          } while (w != done);
          ++count;
        }
      }
    }
  }
  return comp;
}

}  // namespace

LoopInfo LoopAnalysis::run(const Function&, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const DomTree& dom = am.get<DominatorAnalysis>().tree;
  const uint32_t n = cfg.size();
  LoopInfo info;
  info.innermost.assign(n, -1);

  // Natural loops: one per header, from all back edges (u -> h, h dominates u).
  std::vector<std::vector<uint32_t>> latchesOf(n);
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t h : cfg.succ[u])
      if (dom.dominates(h, u)) latchesOf[h].push_back(u);
  std::vector<Loop> loops;
  std::vector<uint32_t> mark(n, UINT32_MAX);
  for (uint32_t h = 0; h < n; ++h) {
    if (latchesOf[h].empty()) continue;
    Loop L;
    L.header = h;
    L.latches = latchesOf[h];
    std::sort(L.latches.begin(), L.latches.end());
    mark[h] = h;
    L.blocks.push_back(h);
    std::vector<uint32_t> work;
    for (uint32_t l : L.latches)
      if (mark[l] != h) {
        mark[l] = h;
        L.blocks.push_back(l);
        work.push_back(l);
      }
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      for (uint32_t p : cfg.pred[x])
        if (mark[p] != h && dom.dominates(h, p)) {
          mark[p] = h;
          L.blocks.push_back(p);
          work.push_back(p);
        }
    }
    std::sort(L.blocks.begin(), L.blocks.end());
    for (uint32_t b : L.blocks)
      for (uint32_t s : cfg.succ[b])
        if (!std::binary_search(L.blocks.begin(), L.blocks.end(), s)) L.exits.emplace_back(b, s);
    std::sort(L.exits.begin(), L.exits.end());
    loops.push_back(std::move(L));
  }
  // Nesting: larger loops first; a loop's parent is the innermost loop already containing its
  // header (natural loops with different headers are disjoint or nested).
  std::stable_sort(loops.begin(), loops.end(), [](const Loop& a, const Loop& b) {
    if (a.blocks.size() != b.blocks.size()) return a.blocks.size() > b.blocks.size();
    return a.header < b.header;
  });
  for (uint32_t k = 0; k < loops.size(); ++k) {
    Loop& L = loops[k];
    L.parent = info.innermost[L.header];
    if (L.parent >= 0) {
      loops[static_cast<uint32_t>(L.parent)].children.push_back(k);
      L.depth = loops[static_cast<uint32_t>(L.parent)].depth + 1;
    }
    for (uint32_t b : L.blocks) info.innermost[b] = static_cast<int32_t>(k);
  }
  info.loops = std::move(loops);

  // Irreducibility: retreating DFS edges whose target does not dominate the source, and the
  // strongly connected regions entered at more than one block.
  {
    std::vector<uint8_t> state(n, 0);
    std::vector<std::pair<uint32_t, size_t>> stack;
    if (n) {
      stack.emplace_back(0, 0);
      state[0] = 1;
    }
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < cfg.succ[v].size()) {
        uint32_t w = cfg.succ[v][next++];
        if (state[w] == 0) {
          state[w] = 1;
          stack.emplace_back(w, 0);
        } else if (state[w] == 1 && !dom.dominates(w, v)) {
          info.irreducibleEdges.emplace_back(v, w);
        }
      } else {
        state[v] = 2;
        stack.pop_back();
      }
    }
    std::sort(info.irreducibleEdges.begin(), info.irreducibleEdges.end());
  }
  if (!info.irreducibleEdges.empty()) {
    uint32_t count = 0;
    std::vector<uint32_t> comp = stronglyConnected(cfg.succ, count);
    std::vector<IrreducibleRegion> regions(count);
    for (uint32_t v = 0; v < n; ++v) regions[comp[v]].blocks.push_back(v);
    for (uint32_t v = 0; v < n; ++v) {
      bool entered = v == 0;
      for (uint32_t p : cfg.pred[v]) entered |= comp[p] != comp[v];
      if (entered) regions[comp[v]].entries.push_back(v);
    }
    for (IrreducibleRegion& r : regions)
      if (r.entries.size() > 1 && r.blocks.size() > 1) info.irreducible.push_back(std::move(r));
    std::sort(info.irreducible.begin(), info.irreducible.end(),
              [](const IrreducibleRegion& a, const IrreducibleRegion& b) { return a.blocks < b.blocks; });
  }
  return info;
}

}  // namespace ptxopt
