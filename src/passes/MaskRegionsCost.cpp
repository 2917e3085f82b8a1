// mask-regions' costs: what ptxas would keep of a region's branches, the expected instructions
// of both forms, and the decision (MaskRegionsCost.h).
#include "MaskRegionsCost.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptxopt/ir/Cfg.h"

#include "IfRegion.h"

namespace ptxopt::maskregions {

unsigned loadsIn(const BasicBlock& b) {
  unsigned n = 0;
  for (const Instruction* i : b.insts())
    if (PtxasModel::isLoad(*i)) ++n;
  return n;
}

unsigned issued(const BasicBlock& b) {
  unsigned n = 0;
  for (const Instruction* i : b.insts())
    if (!(i == b.terminator() && i->is(Opcode::Bra)) && !i->info().isPseudo()) ++n;
  return n;
}

unsigned ptxasKeptBranches(const Plan& p, const CfgInfo& cfg, const PtxasModel& ptxas, bool withLoads) {
  struct Node {
    unsigned size = 0;
    unsigned loads = 0;
    std::vector<uint32_t> succ;
    unsigned preds = 0;
    bool gone = false;
  };
  std::unordered_map<uint32_t, Node> g;
  for (uint32_t b : p.order) {
    Node& n = g[b];
    n.size = issued(*cfg.rpo[b]);
    n.loads = loadsIn(*cfg.rpo[b]);
    n.succ = cfg.succ[b];
  }
  for (uint32_t b : p.order)
    for (uint32_t s : cfg.succ[b])
      if (auto it = g.find(s); it != g.end()) ++it->second.preds;
  auto side = [&](uint32_t s, uint32_t head) -> const Node* {
    auto it = g.find(s);
    if (it == g.end() || s == head || it->second.gone || it->second.preds != 1 || it->second.succ.size() != 1 ||
        int64_t(it->second.size) > ptxas.sideLimit() ||
        (withLoads && it->second.loads >= PtxasModel::kLoadsBranchedAround))
      return nullptr;
    return &it->second;
  };
  unsigned kept = p.branches;
  for (bool again = true; again && kept;) {
    again = false;
    for (uint32_t b : p.order) {
      Node& n = g[b];
      // A block whose only successor has no other predecessor is one straight line with it
      // (a `bra.uni` block after a conditional branch, a side in two pieces).
      while (!n.gone && n.succ.size() == 1) {
        auto it = g.find(n.succ[0]);
        if (it == g.end() || it->first == b || it->second.gone || it->second.preds != 1) break;
        n.size += it->second.size;
        n.loads += it->second.loads;
        n.succ = it->second.succ;
        it->second.gone = true;
        again = true;
      }
      if (n.gone || n.succ.size() != 2) continue;
      uint32_t a = n.succ[0], c = n.succ[1];
      const Node* sa = side(a, b);
      const Node* sc = side(c, b);
      uint32_t merge;
      if (sa && sc && sa->succ[0] == sc->succ[0]) merge = sa->succ[0];       // diamond
      else if (sa && sa->succ[0] == c) merge = c, sc = nullptr;              // triangle
      else if (sc && sc->succ[0] == a) merge = a, sa = nullptr;
      else continue;
      unsigned joined = 0;
      for (auto [id, sn] : {std::pair{a, sa}, std::pair{c, sc}})
        if (sn) {
          n.size += sn->size;
          n.loads += sn->loads;
          g[id].gone = true;
          ++joined;
        }
      n.succ = {merge};
      // The merge loses the sides as predecessors and gains the head once (the head's own
      // edge to it, in a triangle, was already counted).
      if (auto it = g.find(merge); it != g.end()) it->second.preds = it->second.preds - joined + (joined == 2 ? 1 : 0);
      --kept;
      again = true;
    }
  }
  return kept;
}

void notePtxasFigures(Plan& p, const CfgInfo& cfg, const PtxasModel& ptxas) {
  uint32_t e = p.order[0];
  p.ptxasKept = ptxasKeptBranches(p, cfg, ptxas, false);
  p.ptxasKeptLoads = ptxasKeptBranches(p, cfg, ptxas, true);
  for (uint32_t b : p.order)
    if (b != e && loadsIn(*cfg.rpo[b]) >= PtxasModel::kLoadsBranchedAround) ++p.loadBlocks;
}

bool longLatencyBothWays(uint32_t e, uint32_t x, const CfgInfo& cfg) {
  if (cfg.succ[e].size() != 2) return false;
  std::vector<uint32_t> a = reach(cfg, cfg.succ[e][0], x, true), b = reach(cfg, cfg.succ[e][1], x, true);
  std::unordered_set<uint32_t> inA(a.begin(), a.end()), inB(b.begin(), b.end());
  auto slow = [&](const std::vector<uint32_t>& side, const std::unordered_set<uint32_t>& other) {
    for (uint32_t blk : side)
      if (!other.count(blk))
        for (const Instruction* i : cfg.rpo[blk]->insts())
          if (i->info().is(OpFlag::LongLatency) && !i->info().readsMemory()) return true;
    return false;
  };
  return slow(a, inB) && slow(b, inA);
}

std::pair<double, double> expectedCosts(const Plan& p, const CfgInfo& cfg, const BranchCounts* c,
                                        const PassContext& ctx, const UniformityInfo& uni, const CostKnobs& k) {
  std::vector<double> runs(cfg.size(), 0);
  double n = c ? double(c->executions()) : 1.0;
  runs[p.order[0]] = n;
  // How the executions reaching `q` go (PtxasModel.h).
  auto odds = [&](uint32_t q) {
    const BranchCounts* qc = c ? usableCounts(ctx, *cfg.rpo[q]->terminator()) : nullptr;
    if (qc && qc->executions()) return BranchOdds::fromCounts(*qc);
    if (c) return BranchOdds{0.5, 0.5, 0.5};
    return BranchOdds::fromPrior(costMayDiverge(uni, cfg.rpo[q]), k.prior);
  };
  // With a profile, a split in a tree-shaped region costs tree-divergence-cost: its paths
  // run to X without meeting, and ptxas reconverges them there once, at E's BSSY/BSYNC.
  double splitCost = c && p.tree ? k.treeDivergenceCost : ctx.ptxas().divergenceCost();
  // The odds of each conditional branch, found once, when its block is reached.
  std::unordered_map<uint32_t, BranchOdds> branchOdds;
  double branching = 0, linear = 0;
  for (uint32_t b : p.order) {
    const BasicBlock* B = cfg.rpo[b];
    double here = runs[b];
    if (b != p.order[0]) {
      for (uint32_t q : cfg.pred[b]) {
        if (cfg.succ[q].size() != 2) {
          here += runs[q];
          continue;
        }
        auto o = branchOdds.find(q);  // not yet reached: runs[q] is 0
        if (o != branchOdds.end())
          here += (cfg.rpo[q]->successor(EdgeKind::Taken) == B ? o->second.taken : o->second.fall) * runs[q];
      }
      // Lanes of one warp execution meet again at a join: at most once per entry.
      here = std::min(here, n);
      runs[b] = here;
    }
    double insts = issued(*B);
    if (b != p.order[0]) {
      branching += here * insts;
      linear += n * insts;
    }
    if (cfg.succ[b].size() == 2) branching += here + branchOdds.emplace(b, odds(b)).first->second.split * here * splitCost;
  }
  linear += n * double(p.extra);
  return {linear / n, branching / n};
}

Decision decideRegion(const Plan& p, const CfgInfo& cfg, const UniformityInfo& uni, const ThreadIndexFacts& threadIndex,
                      const PassContext& ctx, const CostKnobs& k) {
  BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[p.order[0]]);
  Instruction* br = conditionalBranch(*E);
  auto no = [&](const char* reason, const std::string& why) { return Decision{false, reason, why, nullptr}; };
  if (int64_t(p.size) > k.maxSize) return no("size", "larger than max-size " + std::to_string(k.maxSize));
  if (int64_t(p.depth) > k.maxDepth) return no("depth", "deeper than max-depth " + std::to_string(k.maxDepth));
  if (int64_t(p.liveMasks) > k.maxLiveMasks)
    return no("masks", "more masks live than max-live-masks " + std::to_string(k.maxLiveMasks));
  if (int64_t(p.extra) > k.maxExtra)
    return no("extra", "more added instructions than max-extra " + std::to_string(k.maxExtra));
  std::string why = "within the limits";
  const BranchCounts* c = usableCounts(ctx, *br);
  if (!c && k.thresholdCheck && p.branches == 1 && threadIndex.thresholdBranch(*br))
    return no("threshold", "the branch compares the thread index with a warp-uniform bound: at most one warp of a CTA "
                           "splits on it, the others go one way (threshold-check)");
  if (!c && k.thresholdCheck && threadIndex.highTidBitsBranch(*br))
    return no("threshold", "the branch tests only bits 5 and up of the thread index, which the lanes of a warp share: "
                           "no warp splits on it (threshold-check)");
  if (!c && k.extraLatencyCheck && longLatencyBothWays(p.order[0], p.exit, cfg))
    return no("extra-latency", "both ways hold long-latency arithmetic (extra-latency-check)");
  // Converted, the region still has a branch around each block of loads, and ptxas would have
  // predicated everything else itself: nothing to gain, the masks to pay (bitonic sort's
  // compare-exchange steps). Applies with a profile too: it is about ptxas, not the data.
  if (k.loadBranchCheck && p.ptxasKept == 0 && p.ptxasKeptLoads > 0 && p.loadBlocks >= p.ptxasKeptLoads)
    return no("load-branch", "ptxas would predicate every branch but those around blocks with two or more loads, "
                             "and branches around such a block again once it is guarded (load-branch-check)");
  // One branch ptxas would predicate itself: converted, it writes `@%m add %r, ...` where
  // ptxas's own if-conversion writes `@P IADD3`, and for such a guarded definition of a value
  // live after the region ptxas emits the instruction unguarded plus a SEL of the old value.
  if (k.ptxasTriangleCheck && p.branches == 1 && p.ptxasKept == 0 && p.mergedDefs > 0)
    return no("ptxas-triangle", "ptxas predicates the branch's sides itself, and a guarded definition of a value live "
                                "after the region costs it a SEL (ptxas-triangle-check)");
  const char* model = nullptr;
  if (c || k.prior >= 0) {
    auto [linear, branching] = expectedCosts(p, cfg, c, ctx, uni, k);
    // Without a profile the prior decides, and it is a guess: a gain within prior-margin is as
    // likely a loss on the launches where the branch never splits (bitonic sort's step).
    double margin = c ? 0.0 : std::clamp(k.priorMargin, 0.0, 0.5);
    char buf[240];
    if (c)
      std::snprintf(buf, sizeof buf, "profile: %llu executions; expected %.2f instructions straight-line against %.2f branching",
                    static_cast<unsigned long long>(c->executions()), linear, branching);
    else
      std::snprintf(buf, sizeof buf,
                    "no profile: with divergence-prior %.2f, expected %.2f instructions straight-line against %.2f "
                    "branching (prior-margin %.2f)",
                    std::min(k.prior, 1.0), linear, branching, margin);
    why = buf;
    model = c ? "profile" : "prior";
    if (!convertedWins(linear, branching * (1 - margin))) return Decision{false, model, why, model};
  }
  return Decision{true, "", why, model};
}

}  // namespace ptxopt::maskregions
