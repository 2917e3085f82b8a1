// switch-opt's costs: see SwitchCosts.h.
#include "SwitchCosts.h"

#include <algorithm>
#include <map>
#include <set>

namespace ptxopt::switchopt {

namespace {

// A case block's warp instructions: its own and the jump to the join.
double caseBlockCost(const BasicBlock* b) {
  double size = 1;
  for (const Instruction* i : b->insts())
    if (!i->info().isPseudo() && i != b->terminator()) size += 1;
  return size;
}

}  // namespace

unsigned bstDepth(size_t n) {
  if (n <= kLeafRuns) return unsigned(n);
  return 1 + std::max(bstDepth(n / 2), bstDepth(n - n / 2));
}

std::optional<ProfileCosts> profileCosts(const PassContext& ctx, const SwitchTreeReader& reader,
                                         const NodesByBlock& tests, const SwitchNode& root,
                                         const std::vector<Run>& runs, std::optional<double> valueTableCost,
                                         std::optional<double> predicateCost, bool hotFirst) {
  const BranchCounts* rc = ctx.branchCounts(*root.bra);
  if (!rc || rc->indirect != root.isBrx() || rc->executions() == 0) return std::nullopt;
  double runsE = double(rc->executions());
  ProfileCosts pc;
  if (valueTableCost) pc.valueTable = runsE * *valueTableCost;
  if (predicateCost) pc.predicate = runsE * *predicateCost;
  if (root.isBrx()) {
    // A root brx.idx on a bounded index, alone: the profile counts, per warp execution, the
    // distinct places its lanes went. Kept, it costs its dispatch (a table's fixed part
    // without the range check) and each place's block once per execution that reaches it,
    // taken here at the blocks' mean size.
    if (tests.size() != 1) return std::nullopt;
    double pairs = 0, divergentRuns = 0;
    for (auto& [k, n] : rc->distinctTargets) {
      pairs += double(k) * double(n);
      if (k > 1) divergentRuns += double(n);
    }
    BlockSet places;
    for (BasicBlock* e : root.entries) places.insert(reader.skipJumps(e));
    double sizes = 0;
    for (BasicBlock* b : places) sizes += caseBlockCost(b);
    pc.tree = double(PtxasModel::tableOverhead(divergentRuns > 0) - 2) * runsE + pairs * sizes / double(places.size());
    pc.table = pc.bst = std::numeric_limits<double>::infinity();
    return pc;
  }
  BlockMap<double> reach;
  bool uniformRuns = true;
  for (auto& [b, t] : tests) {
    if (t.isBrx()) return std::nullopt;  // counts per target are not in the profile
    const BranchCounts* c = ctx.branchCounts(*t.bra);
    if (!c || c->indirect) return std::nullopt;  // a test the profile does not know
    pc.tree += 2.0 * double(c->executions());
    uniformRuns = uniformRuns && c->divergent == 0;
    double taken = double(c->allTaken + c->divergent), fall = double(c->allNotTaken + c->divergent);
    bool trueTaken = !t.bra->guardNegated();
    for (bool side : {true, false}) {
      BasicBlock* to = reader.skipJumps(side ? t.ifTrue : t.ifFalse);
      if (!tests.count(to)) reach[to] += side == trueTaken ? taken : fall;
    }
  }
  // In the tree a block runs once per edge into it that some lane takes (the lanes of
  // different leaves reach it apart); behind one table or search-tree dispatch, at most once
  // per execution of the root.
  double bodies = 0, dispatched = 0;
  for (auto& [b, n] : reach) {
    double size = caseBlockCost(b);
    bodies += n * size;
    dispatched += std::min(n, runsE) * size;
  }
  pc.tree += bodies;
  pc.table = double(PtxasModel::tableOverhead(rc->divergent > 0)) * runsE + dispatched;
  // One hot case first: its test (setp and bra, and a sub for a run of several values) in
  // every execution, the table's fixed part only in the others. Only where every warp went
  // one way at every test (then an edge's count is the executions that took it).
  if (uniformRuns && hotFirst) {
    double best = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
      const Run& r = runs[k];
      size_t sameTarget = 0;
      for (const Run& o : runs) sameTarget += o.target == r.target;
      auto it = reach.find(r.target);
      if (sameTarget != 1 || it == reach.end() || it->second <= best) continue;
      best = it->second;
      pc.hotRun = long(k);
      pc.hot = (r.lo == r.hi ? 2.0 : 3.0) * runsE + double(PtxasModel::tableOverhead(false)) * (runsE - std::min(best, runsE)) + dispatched;
    }
  }
  pc.bst = 2.0 * double(bstDepth(runs.size())) * runsE + dispatched;  // a uniform selector: one path, at most this long
  return pc;
}

}  // namespace ptxopt::switchopt
