// switch-opt (issue #12, seed 003 DoSwitchOpt; docs/passes/switch-opt.md): a tree of compares
// of one selector against constants becomes a jump table, a value table, a balanced search
// tree, a cascade or predicated straight-line code, or is kept.
//
// First, sinkCaseConstants (CaseConstants.h) moves LLVM's case constants out of test blocks
// into case blocks of their own; at the end restoreUnused puts back those no lowering took.
//
// Recognition (the nodes: SwitchTree.h). Each reachable block, in reverse post-order, that ends
// in a node is tried as a root (it may compute the selector first). A node compares the
// selector (16 or 32 bits, maybe plus a constant) with an immediate, or is an unguarded
// brx.idx on it, or one of LLVM's bit tests; a root brx.idx needs an `and`/`rem.u32` in its
// block that keeps the index in its table. Below the root, nodes on the same selector and width
// that do not write it join the tree (at most `budget`), through blocks that only jump or are
// empty; the first other block on a path is a leaf. A node's outcome changes only at a few
// selector values (where the compared value crosses the constant or wraps, a bit test's shift
// passes a bit, a table's entries start), so evaluating the tree at those points gives every
// value's target exactly. The values below and above all of them must reach one block, the
// default (under an `and`/`rem` bound that leaves no value outside the cases, the block most
// values reach); the others are the cases, in runs of consecutive values with one target. A
// tree whose nodes' predicates, offset sums or bit-test registers are read at a target is kept
// (a lowering drops the nodes).
//
// Each switch goes through three steps (lower):
//  * analyze: the tree above, its runs and default, and what the choice reads, in a
//    SwitchShape (SwitchChoice.h): the table cost model's objection (`min-cases`, `max-span`,
//    `min-density`), the selector's divergence, the nodes' values read later, the plans of a
//    value table (SwitchValueTable.h) and of a predicated switch (SwitchPredicated.h), and with
//    a branch profile each lowering's expected warp instructions (SwitchCosts.h);
//  * choose (SwitchChoice.cpp, the policy; knob `lowering`: `auto`, or one form forced): a
//    Lowering and the reason its remark gives;
//  * emit: the lowering's code. Here: the jump table (the index, the selector minus the first
//    case; a range check to the default; a brx.idx over the span in a new block; with a
//    profile's hot run, its test first; on a uniform selector the function's end may then be
//    copied into the cases, SwitchTails.h, `tail-limit`), the value table, and the balanced
//    search tree or cascade. The predicated switch: SwitchPredicated.cpp. The instructions
//    they share: SwitchEmit.h.
// The old nodes stay where anything else reaches them; branch-opt and dce remove the rest. In a
// function where a { } scope holds blocks nothing moves between blocks (no sunk constants,
// value tables, predicated switches or copied ends); jump tables and compare trees are still
// built there.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Semantics.h"
#include "ptxopt/passes/Passes.h"

#include "CaseConstants.h"
#include "GuardedCode.h"
#include "SwitchChoice.h"
#include "SwitchCosts.h"
#include "SwitchEmit.h"
#include "SwitchPredicated.h"
#include "SwitchTails.h"
#include "SwitchValueTable.h"
#include "SwitchTree.h"

namespace ptxopt {

namespace {

using namespace switchopt;

class SwitchOpt : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    am_ = &am;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    minCases_ = k.getInt("min-cases");
    minDensity_ = k.getFloat("min-density");
    maxSpan_ = k.getInt("max-span");
    budget_ = k.getInt("budget");
    valueTable_ = k.getBool("value-table");
    policy_.forced = parseLowering(k.getString("lowering"));
    policy_.bstGain = k.getInt("bst-gain");
    policy_.predicateLimit = k.getInt("predicate-limit");
    policy_.valueTables = valueTable_;
    tailLimit_ = k.getInt("tail-limit");
    hotFirst_ = k.getBool("hot-first");
    speculate_ = k.getBool("speculate");
    caseMasks_ = k.getBool("case-masks");
    maxTableBytes_ = k.getInt("max-table-bytes");
    bool changed = false;
    tried_.clear();
    // A { } scope around blocks: names inside mean other registers than outside, so nothing
    // moves between blocks here (no sunk constants, value tables, predicated switches or
    // copied ends); jump tables and compare trees move nothing.
    scoped_ = scopeSpansBlocks(f);
    if (scoped_) ctx.count("scoped-functions");
    std::vector<SunkConstants> sunk = scoped_ ? std::vector<SunkConstants>{} : sinkCaseConstants(f, am, ctx);
    for (bool again = true; again;) {
      again = false;
      const CfgInfo& cfg = am.get<CfgAnalysis>();
      const Liveness& lv = am.get<LivenessAnalysis>();
      tables_ = collectBranchTargetTables(f);
      pinned_ = pinnedLabelNames(f, tables_);
      reader_.emplace(f, tables_, pinned_);
      // Reachable blocks in reverse post-order: a tree's root before its inner tests (which a
      // lowering leaves unreachable).
      std::vector<BasicBlock*> order;
      for (const BasicBlock* b : cfg.rpo) order.push_back(const_cast<BasicBlock*>(b));
      for (BasicBlock* b : order) {
        std::optional<SwitchNode> t = reader_->nodeAt(b, /*root=*/true);
        if (!t || !tried_.insert(t->bra).second) continue;
        size_t i = std::find(f.blocks().begin(), f.blocks().end(), b) - f.blocks().begin();
        if (lower(i, *t, lv)) {
          buildCfg(f);
          am.invalidate(PreservedAnalyses::none());
          changed = again = true;
          break;
        }
      }
    }
    if (!sunk.empty()) {
      changed = restoreUnused(f, am, ctx, sunk) < sunk.size() || changed;
    }
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  // One switch: read it, choose its lowering, emit that.
  bool lower(size_t rootIndex, const SwitchNode& root, const Liveness& lv) {
    std::optional<SwitchShape> s = analyze(rootIndex, root, lv);
    if (!s) return false;
    const Choice c = choose(*s, policy_);
    if (c.byProfile) ctx_->count("profile-decisions");
    for (const auto& [decision, reason] : c.notes) ctx_->remark(s->rootBlock, decision, reason, {{"line", double(root.bra->loc().line)}});
    switch (c.lowering) {
      case Lowering::Keep:
        ctx_->count("refused-" + c.refused);
        ctx_->remark(s->rootBlock, "keep", c.where + ": " + c.why, {{"line", double(root.bra->loc().line)}});
        return false;
      case Lowering::ValueTable:
        emitValueTable(rootIndex, root, *s->valueTable, s->first, s->span, c.where, s->density);
        ctx_->count("cases", s->ncases);
        return true;
      case Lowering::Predicate:
        emitPredicatedSwitch(*s, c);
        return true;
      case Lowering::BalancedTree:
      case Lowering::Cascade:
        emitSearchTree(*s, c);
        return true;
      case Lowering::Table:
      case Lowering::HotFirst:
        emitJumpTable(*s, c, lv);
        return true;
    }
    return false;
  }

  // ---- analysis ---------------------------------------------------------------------------

  // Reads the tree under `root` (its block at `rootIndex`) and what the choice needs to know of
  // it; nullopt for a plain branch, and for a tree whose cases cannot be read (remark `keep`:
  // no cases, no default, a cycle).
  std::optional<SwitchShape> analyze(size_t rootIndex, const SwitchNode& root, const Liveness& lv) {
    BasicBlock* rootBlock = f_->blocks()[rootIndex];
    const CfgInfo& cfg = am_->get<CfgAnalysis>();
    const DominatorTree& dom = am_->get<DominatorAnalysis>();
    SwitchShape s;
    s.rootIndex = rootIndex;
    s.rootBlock = rootBlock;
    s.root = root;
    // The tree: tests on the same selector with the same signedness, by block.
    NodesByBlock& tests = s.tests;
    tests[rootBlock] = root;
    std::set<int64_t> constants;
    if (root.bitTest) {
      for (uint32_t u = 0; u < 32; ++u)
        if ((root.bitMask >> u) & 1u) constants.insert(valueOf(u - root.offset, 32, root.isSigned));
    } else if (!root.isBrx()) {
      constants.insert(root.c);
    }
    int64_t typeMin = root.bits == 16 ? (root.isSigned ? INT16_MIN : 0) : (root.isSigned ? INT32_MIN : 0);
    int64_t typeMax = root.bits == 16 ? (root.isSigned ? INT16_MAX : int64_t(UINT16_MAX))
                                      : (root.isSigned ? INT32_MAX : int64_t(UINT32_MAX));
    // A root brx.idx whose index an and/rem keeps in its table: no other value occurs.
    const bool bounded = root.domainHi >= 0, brxRoot = root.isBrx();
    s.brxRoot = brxRoot;
    if (bounded) {
      typeMin = 0;
      typeMax = root.domainHi;
    }
    // The values (in the tree's domain) where a test's outcome may change, with the value just
    // before: where the compared value crosses the constant, or wraps around (unsigned or
    // signed) because of the offset.
    std::set<int64_t> edges;
    auto addEdges = [&](const SwitchNode& t) {
      if (t.bitTest) {  // each shift amount from 0 to 32, and the signed wrap
        for (uint32_t u = 0; u <= 33; ++u) {
          int64_t v = valueOf((u == 33 ? 0x80000000u : u) - t.offset, 32, root.isSigned);
          if (v > typeMin && holds(t, v - 1) != holds(t, v)) {
            edges.insert(v - 1);
            edges.insert(v);
          }
        }
        return;
      }
      if (t.isBrx()) {  // every entry's first value, and the end of the table
        for (uint32_t j = 0; j <= t.entries.size(); ++j) {
          int64_t v = valueOf(j - t.offset, 32, root.isSigned);
          if (v > typeMin) {
            edges.insert(v - 1);
            edges.insert(v);
          }
        }
        return;
      }
      uint32_t mask = t.bits == 16 ? 0xffffu : 0xffffffffu, half = t.bits == 16 ? 0x8000u : 0x80000000u;
      for (uint32_t u : {t.raw, t.raw + 1, 0u, half}) {
        int64_t v = valueOf((u - t.offset) & mask, t.bits, root.isSigned);
        if (v > typeMin && holds(t, v - 1) != holds(t, v)) {
          edges.insert(v - 1);
          edges.insert(v);
        }
      }
    };
    addEdges(root);
    std::vector<BasicBlock*> work;
    if (root.isBrx())
      for (BasicBlock* e : root.entries) work.push_back(reader_->skipJumps(e));
    else
      work = {reader_->skipJumps(root.ifTrue), reader_->skipJumps(root.ifFalse)};
    std::unordered_set<BasicBlock*> leaves;
    while (!work.empty()) {
      BasicBlock* b = work.back();
      work.pop_back();
      if (tests.count(b) || leaves.count(b)) continue;
      std::optional<SwitchNode> t = reader_->nodeAt(b, false);
      // A bit test whose shl is in another block: that block is a node of this tree and
      // dominates this one, so every way from the root here computed the shl on the selector.
      auto shlReaches = [&](const SwitchNode& bt) {
        if (!bt.shlBlock) return true;
        int32_t d = cfg.index(bt.shlBlock), here = cfg.index(b);
        return tests.count(bt.shlBlock) && d >= 0 && here >= 0 && dom.tree.dominates(uint32_t(d), uint32_t(here));
      };
      if (t && t->sel == root.sel && t->bits == root.bits && t->tmp != root.sel && int64_t(tests.size()) < budget_ &&
          t->entries.size() <= size_t(4 * maxSpan_) &&
          std::find(t->temps.begin(), t->temps.end(), root.sel) == t->temps.end() && shlReaches(*t) &&
          b != f_->entry()) {
        tests[b] = *t;
        if (t->bitTest) {
          for (uint32_t u = 0; u < 32; ++u)
            if ((t->bitMask >> u) & 1u) constants.insert(valueOf(u - t->offset, 32, root.isSigned));
        } else if (!t->isBrx()) {
          constants.insert(valueOf((t->raw - t->offset) & (t->bits == 16 ? 0xffffu : 0xffffffffu), t->bits, root.isSigned));
        }
        addEdges(*t);
        if (t->isBrx()) {
          for (BasicBlock* e : t->entries) work.push_back(reader_->skipJumps(e));
        } else {
          work.push_back(reader_->skipJumps(t->ifTrue));
          work.push_back(reader_->skipJumps(t->ifFalse));
        }
      } else {
        leaves.insert(b);
      }
    }
    // A tree is decided once, from its root: its inner tests are not roots of their own.
    for (auto& [b, t] : tests) tried_.insert(t.bra);
    std::string where = brxRoot ? "brx.idx at line " + std::to_string(root.bra->loc().line) + " (index in 0.." +
                                      std::to_string(root.domainHi) + ", " + std::to_string(tests.size()) + " tests)"
                                : "compare tree at line " + std::to_string(root.bra->loc().line) + " (" +
                                      std::to_string(tests.size()) + " tests, " + std::to_string(constants.size()) + " constants)";
    auto refuse = [&](const std::string& reason, const std::string& text) {
      ctx_->count("refused-" + reason);
      ctx_->remark(rootBlock, "keep", where + ": " + text, {{"line", double(root.bra->loc().line)}});
      return std::optional<SwitchShape>();
    };
    if (tests.size() < 2 && !brxRoot) return std::nullopt;  // a plain branch, not a switch
    if (bounded) {
      edges.erase(edges.begin(), edges.lower_bound(typeMin));
      edges.erase(edges.upper_bound(typeMax), edges.end());
    }
    for (auto& [b, t] : tests)
      if (t.bitTest) ctx_->count("bit-test-nodes");
    // Where value `v` goes from the root; null for a cycle among the tests, a brx.idx index
    // outside its table, or a bit test whose shl is not on the way from the root (the shl's
    // block may dominate the node from above the root, in a loop): the path is the same for
    // every value between two change points, so checking it here is exact.
    auto target = [&](int64_t v) {
      BasicBlock* b = rootBlock;
      std::vector<BasicBlock*> path;
      for (size_t steps = 0; steps <= tests.size(); ++steps) {
        auto it = tests.find(b);
        if (it == tests.end()) return b;
        if (it->second.shlBlock && std::find(path.begin(), path.end(), it->second.shlBlock) == path.end())
          return static_cast<BasicBlock*>(nullptr);
        path.push_back(b);
        b = reader_->next(it->second, v);
        if (!b) return b;  // past a brx.idx table
      }
      return static_cast<BasicBlock*>(nullptr);  // a cycle among the tests
    };
    // Every value below `lo` takes the same path as `lo`, every value above `hi` as `hi`.
    if (edges.empty()) return refuse("no-cases", "every value takes the same path");
    int64_t lo = *edges.begin(), hi = *edges.rbegin();
    BasicBlock* below = lo > typeMin ? target(lo - 1) : nullptr;
    BasicBlock* above = hi < typeMax ? target(hi + 1) : nullptr;
    BasicBlock* dflt = below ? below : above;
    const bool chosenDefault = bounded && !below && !above;
    if (chosenDefault) {
      // Every value of the domain reaches a case: the block most values reach stands for the
      // default (values outside the domain do not occur); on a tie the block of the highest
      // values, so that a table can start at 0.
      BlockMap<int64_t> reached;
      for (auto it = edges.begin(); it != edges.end(); ++it) {
        auto next = std::next(it);
        if (BasicBlock* t = target(*it)) reached[t] += (next == edges.end() ? typeMax + 1 : *next) - *it;
      }
      for (auto it = edges.rbegin(); it != edges.rend(); ++it)
        if (BasicBlock* t = target(*it); t && (!dflt || reached[t] > reached[dflt])) dflt = t;
    }
    if (!dflt || (below && above && below != above))
      return refuse("no-default", below || above || !(lo > typeMin || hi < typeMax)
                                      ? "the values below and above the constants go to different blocks"
                                      : "values outside the constants go past a brx.idx table");
    // Between two consecutive points every value takes the same path: the runs of values with
    // one target other than the default follow from one evaluation per point.
    std::vector<Run>& runs = s.runs;
    for (auto it = edges.begin(); it != edges.end(); ++it) {
      auto next = std::next(it);
      int64_t from = *it, to = next == edges.end() ? *it : *next - 1;
      BasicBlock* t = target(from);
      if (!t)
        return refuse("cycle", "the tests form a cycle, send a value past a brx.idx table, or reach a bit test whose shl is not on "
                               "the way from the root");
      if (t == dflt) continue;
      if (!runs.empty() && runs.back().hi + 1 == from && runs.back().target == t)
        runs.back().hi = to;
      else
        runs.push_back({from, to, t});
    }
    if (runs.empty()) return refuse("no-cases", "every value reaches the default");
    s.dflt = dflt;
    for (const Run& r : runs) s.ncases += r.hi - r.lo + 1;
    s.first = runs.front().lo;
    s.last = runs.back().hi;
    s.span = s.last - s.first + 1;
    s.density = double(s.ncases) / double(s.span);
    where += ": " + std::to_string(s.ncases) + " cases over " + std::to_string(s.span) + " values";
    s.where = where;
    // Each value of a table's span and its target, where a table is possible.
    s.tableFits = s.span <= maxSpan_;
    if (s.tableFits)
      for (const Run& r : runs)
        for (int64_t v = r.lo; v <= r.hi; ++v) s.cases[v] = r.target;
    // What speaks against a table.
    // (A default chosen among the cases of a bounded selector counts as a case: every value of
    // the domain has a case.)
    if ((chosenDefault ? typeMax - typeMin + 1 : s.ncases) < minCases_)
      s.tableWhy = std::to_string(s.ncases) + " cases against min-cases " + std::to_string(minCases_);
    else if (s.span > maxSpan_)
      s.tableWhy = "a span of " + std::to_string(s.span) + " against max-span " + std::to_string(maxSpan_);
    else if (s.density < minDensity_)
      s.tableWhy = "density " + std::to_string(s.density).substr(0, 4) + " against min-density " + std::to_string(minDensity_).substr(0, 4);
    s.divergent = !uniformSelector(rootBlock);
    s.profiled = ctx_->branchCounts(*root.bra) != nullptr;
    for (auto& [b, t] : tests) s.bitTests = s.bitTests || t.bitTest;
    if (tests.size() == 2)
      for (auto& [b, t] : tests) s.rangeCheckBrx = s.rangeCheckBrx || t.isBrx();
    for (int64_t v : edges) s.longestPath = std::max(s.longestPath, nodesOnPath(tests, rootBlock, v));
    s.balancedDepth = bstDepth(runs.size());
    // The targets, in block-id order (the order the labels added below are numbered in).
    s.targets = BlockSet{dflt};
    for (const Run& r : runs) s.targets.insert(r.target);
    // A switch the policy refuses on cost at once needs no plan.
    if (refusedOnCost(s, policy_)) return s;
    // The tests' predicates no longer get their values.
    auto block = [&](const char* reason, std::string text) {
      s.blocked = reason;
      s.blockedWhy = std::move(text);
      return s;
    };
    for (auto& [b, t] : tests)
      for (BasicBlock* l : s.targets) {
        if ((t.pred != kNoReg && lv.liveIn[l->id()].test(t.pred)) || (t.add && lv.liveIn[l->id()].test(t.tmp)))
          return block("live", "the " + std::string(t.pred != kNoReg && lv.liveIn[l->id()].test(t.pred) ? "predicate" : "offset selector") +
                                   " of the test at line " + std::to_string(t.bra->loc().line) + " is read later");
        for (RegId r : t.temps)
          if (lv.liveIn[l->id()].test(r))
            return block("live", "a register the bit test at line " + std::to_string(t.bra->loc().line) + " computes is read later");
      }
    for (BasicBlock* l : s.targets)
      if (!l->hasLabel() && l == f_->entry()) return block("entry", "a case reaches the entry block");

    // The branch-free lowerings' plans, where they apply.
    s.valueTableWhy = "value tables are off";
    if (valueTable_ && scoped_) s.valueTableWhy = "a { } scope holds blocks of the function";
    else if (valueTable_ && s.tableFits) {
      s.valueTable = planValueTable(*f_, *reader_, rootBlock, root, tests, s.cases, dflt, s.first, s.last, maxTableBytes_, s.valueTableWhy);
      if (s.valueTable) s.valueTable->divergent = s.divergent;
    }
    else if (valueTable_) s.valueTableWhy = "a span over max-span";
    if (scoped_) s.predicatedWhy = "a { } scope holds blocks of the function";
    else if (!mayPredicate(s, policy_)) s.predicatedWhy = "not tried";
    else s.predicated = planPredicated(*f_, *reader_, rootBlock, tests, runs, dflt, lv, speculate_, s.predicatedWhy);
    if (s.predicated) {
      s.predicateCost = planPredicates(root, runs, dflt, *s.predicated, caseMasks_).cost;
      // A selector that some path sets to a constant (the last such mov).
      for (const BasicBlock* b : f_->blocks())
        for (const Instruction* i : b->insts())
          if (i->is(Opcode::Mov) && i->numOperands() == 2 && i->operand(0).isReg() && RegId(i->operand(0).id) == root.sel &&
              i->operand(1).isImm())
            s.selectorConstantLine = i->loc().line;
    }
    s.branchingCost = unsigned(s.targets.size()) + PtxasModel::tableOverhead(true);
    // With a profile: per execution of the root, a value table issues its index, range check,
    // address and one load per register (and the default's test); the predicated form its
    // predicates and every body.
    std::optional<double> vtCost, psCost;
    if (s.valueTable) vtCost = 5.0 + double(s.valueTable->columns.size()) + (s.valueTable->branchDefault ? 2.0 : 0.0);
    if (s.predicated) psCost = double(s.predicateCost + s.predicated->size);
    if (!policy_.forced) s.profile = profileCosts(*ctx_, *reader_, tests, root, runs, vtCost, psCost, hotFirst_);
    return s;
  }

  // Tests the value `v` passes through in the gathered tree.
  unsigned nodesOnPath(const NodesByBlock& tests, BasicBlock* b, int64_t v) const {
    unsigned n = 0;
    for (auto it = tests.find(b); it != tests.end() && n <= tests.size() && b; it = tests.find(b)) {
      ++n;
      b = reader_->next(it->second, v);
    }
    return n;
  }

  bool uniformSelector(const BasicBlock* root) const { return !am_->get<UniformityAnalysis>().isDivergentBranch(root); }

  // ---- jump tables --------------------------------------------------------------------------

  // The index (the selector minus the first case), a range check to the default, and a brx.idx
  // over the span in a new block; for HotFirst, the hot run's test first. On a uniform selector
  // the function's end may then be copied into the cases (SwitchTails.h, `tail-limit`).
  void emitJumpTable(const SwitchShape& s, const Choice& c, const Liveness& lv) {
    const SwitchNode& root = s.root;
    BasicBlock* rootBlock = s.rootBlock;
    std::string where = c.where;
    for (BasicBlock* l : s.targets)
      if (!l->hasLabel()) f_->addLabel(l, "$Lsw");
    RegId idx = emitIndex(rootBlock, root, s.first);
    auto& blocks = f_->blocks();
    size_t dispatchAt = s.rootIndex + 1;
    BasicBlock* checkBlock = rootBlock;
    if (c.lowering == Lowering::HotFirst) {
      // The hot run's test ends the root; the range check gets a block of its own.
      const Run& h = s.runs[size_t(c.hotRun)];
      Instruction* br = buildBra(*f_, h.target->label(), emitRunPredicate(*f_, rootBlock, root, h), false, nullptr);
      append(rootBlock, root, br);
      tried_.insert(br);
      checkBlock = f_->createBlock();
      blocks.insert(blocks.begin() + long(dispatchAt++), checkBlock);
      ctx_->count("hot-first");
    }
    emitRangeCheck(checkBlock, root, idx, s.span, s.dflt);
    BasicBlock* dispatch = f_->createBlock();
    Instruction* table = f_->createInstruction(Opcode::BranchTargets);
    uint32_t tableName = f_->parent()->intern(f_->freshName("$Lswt"));
    table->setPayload(tableName);
    for (int64_t v = s.first; v <= s.last; ++v) {
      auto it = s.cases.find(v);
      table->addOperand(Operand::label((it == s.cases.end() ? s.dflt : it->second)->label()));
    }
    Instruction* brx = buildInstruction(*f_, Opcode::BrxIdx, ScalarType::None, {Operand::reg(idx), Operand::symbol(tableName)}, nullptr);
    for (Instruction* i : {table, brx}) {
      place(root, i)->setParent(dispatch);
      dispatch->append(i);
    }
    blocks.insert(blocks.begin() + long(dispatchAt), dispatch);
    ctx_->count("jump-tables");
    ctx_->count("cases", s.cases.size());
    if (!s.divergent && !scoped_)
      if (unsigned n = copyFunctionEnd(*f_, *ctx_, s.targets, rootBlock, dispatch, lv.liveOut[rootBlock->id()], tailLimit_))
        where += ", the function's end copied into " + std::to_string(n) + " cases";
    ctx_->remark(rootBlock, "jump-table", where + ", density " + std::to_string(s.density).substr(0, 4),
                 {{"line", double(root.bra->loc().line)}, {"cases", double(s.cases.size())}, {"span", double(s.span)}});
  }

  // Removes the root's test and appends the table index to the root: the selector minus the
  // first case, widened first when the selector has 16 bits (sign- or zero-extended as the
  // tests read it). A 32-bit selector whose table starts at 0 is its own index.
  RegId emitIndex(BasicBlock* rootBlock, const SwitchNode& root, int64_t first) {
    removeRootNode(*f_, rootBlock, root);
    RegId wide = root.sel;
    if (root.bits == 16) {
      wide = f_->addRegister(ScalarType::U32, "%swi");
      // cvt.{s,u}32.{s,u}16: the destination's type first.
      Instruction* widen = buildInstruction(*f_, Opcode::Cvt, root.isSigned ? ScalarType::S32 : ScalarType::U32,
                                            {Operand::reg(wide), Operand::reg(root.sel)}, nullptr);
      widen->addMod(typeMod(root.isSigned ? ScalarType::S16 : ScalarType::U16));
      append(rootBlock, root, widen);
    }
    if (first == 0) return wide;
    RegId idx = f_->addRegister(ScalarType::U32, "%swi");
    emitBinary(*f_, rootBlock, root, Opcode::Sub, ScalarType::S32, idx, Operand::reg(wide), Operand::imm(int64_t(int32_t(uint32_t(first)))));
    return idx;
  }

  // Appends a table's range check to `b`: `setp.gt.u32 %p, IDX, SPAN-1; @%p bra DEFAULT` (a value
  // below the table's first wrapped around to a large unsigned number).
  void emitRangeCheck(BasicBlock* b, const SwitchNode& root, RegId idx, int64_t span, BasicBlock* dflt) {
    RegId p = emitSetp(*f_, b, root, CmpOp::Gt, ScalarType::U32, idx, Operand::imm(span - 1));
    Instruction* br = append(b, root, buildBra(*f_, dflt->label(), p, false, nullptr));
    tried_.insert(br);  // with the brx.idx behind it, a switch already lowered
  }

  // ---- value tables (switch-to-lookup-table; the plan: SwitchValueTable.h) ------------------

  void emitValueTable(size_t rootIndex, const SwitchNode& root, const ValueTable& vt, int64_t first, int64_t span,
                      const std::string& where, double density) {
    BasicBlock* rootBlock = f_->blocks()[rootIndex];
    if (!vt.join->hasLabel()) f_->addLabel(vt.join, "$Lsw");
    if (vt.branchDefault && !vt.branchDefault->hasLabel()) f_->addLabel(vt.branchDefault, "$Lsw");
    // The table: a byte array in the function, in .const space for a uniform selector (one
    // constant-cache read per warp) and in .global space, read through the non-coherent
    // cache, for a divergent one (constant-cache reads of different addresses serialize).
    StateSpace space = vt.divergent ? StateSpace::Global : StateSpace::Const;
    std::string name = f_->freshName("$swv");
    uint32_t nameId = f_->parent()->intern(name);
    Decl d;
    d.kind = Decl::Kind::Var;
    d.var.space = space;
    d.var.align = vt.columns.front().bytes;
    d.var.type = ScalarType::B8;
    d.var.name = nameId;
    d.var.dims = {int64_t(vt.stride * vt.rows.size())};
    d.var.hasInit = true;
    d.var.loc = root.bra->loc();
    d.loc = root.bra->loc();
    d.var.init.push_back(InitItem{InitItem::Kind::Open, 0, 0, 0});
    for (const auto& row : vt.rows) {
      std::vector<uint8_t> bytes(vt.stride, 0);
      for (const Column& c : vt.columns) {
        uint64_t v = row.at(c.reg);
        for (unsigned k = 0; k < c.bytes; ++k) bytes[c.offset + k] = uint8_t(v >> (8 * k));
      }
      for (uint8_t b : bytes) d.var.init.push_back(InitItem{InitItem::Kind::Int, 0, 0, int64_t(b)});
    }
    d.var.init.push_back(InitItem{InitItem::Kind::Close, 0, 0, 0});
    f_->decls().push_back(std::move(d));  // after the others: instructions of nested scopes name decls by index

    RegId idx = emitIndex(rootBlock, root, first);
    BasicBlock* loads = rootBlock;
    if (vt.branchDefault) {
      emitRangeCheck(rootBlock, root, idx, span, vt.branchDefault);
      loads = f_->createBlock();
      auto& blocks = f_->blocks();
      blocks.insert(blocks.begin() + long(rootIndex) + 1, loads);
    } else if (!(root.domainHi >= 0 && first == 0 && root.domainHi <= span)) {
      // Every value out of range reads the default's row, the last (a root brx.idx's index
      // whose and/rem keeps it within the rows needs no clamp).
      RegId clamped = f_->addRegister(ScalarType::U32, "%swi");
      emitBinary(*f_, rootBlock, root, Opcode::Min, ScalarType::U32, clamped, Operand::reg(idx), Operand::imm(span));
      idx = clamped;
    }
    RegId base = f_->addRegister(ScalarType::U64, "%swa");
    RegId off = f_->addRegister(ScalarType::U64, "%swa");
    RegId addr = f_->addRegister(ScalarType::U64, "%swa");
    append(loads, root, buildInstruction(*f_, Opcode::Mov, ScalarType::U64, {Operand::reg(base), Operand::symbol(nameId)}, nullptr));
    Instruction* mul = buildInstruction(*f_, Opcode::Mul, ScalarType::None,
                                        {Operand::reg(off), Operand::reg(idx), Operand::imm(vt.stride)}, nullptr);
    mul->addMod(Mod::Wide);  // mul.wide.u32
    mul->addMod(typeMod(ScalarType::U32));
    append(loads, root, mul);
    emitBinary(*f_, loads, root, Opcode::Add, ScalarType::S64, addr, Operand::reg(base), Operand::reg(off));
    for (const Column& c : vt.columns) {
      Operand a;
      a.kind = OperandKind::Address;
      a.aux = static_cast<uint16_t>(AddressBase::Reg);
      a.id = addr;
      a.value = c.offset;
      Instruction* ld = buildInstruction(*f_, Opcode::Ld, ScalarType::None, {Operand::reg(c.reg), a}, nullptr);
      ld->addMod(spaceMod(space));  // ld.SPACE[.nc].bN
      if (space == StateSpace::Global) ld->addMod(Mod::Nc);
      ld->addMod(typeMod(c.bytes == 8 ? ScalarType::B64 : c.bytes == 4 ? ScalarType::B32 : ScalarType::B16));
      append(loads, root, ld);
    }
    append(loads, root, buildBra(*f_, vt.join->label(), kNoReg, false, nullptr));
    ctx_->count("value-tables");
    ctx_->remark(rootBlock, "value-table",
                 where + ", density " + std::to_string(density).substr(0, 4) + ": " + std::to_string(vt.columns.size()) +
                     " registers, " + std::to_string(vt.stride * vt.rows.size()) + " bytes in " +
                     (vt.divergent ? ".global (divergent selector)" : ".const (uniform selector)"),
                 {{"line", double(root.bra->loc().line)}, {"span", double(span)}, {"registers", double(vt.columns.size())}});
  }

  // ---- compare trees ----------------------------------------------------------------------

  void emitSearchTree(const SwitchShape& s, const Choice& c) {
    const bool balanced = c.lowering == Lowering::BalancedTree;
    for (BasicBlock* l : s.targets)
      if (!l->hasLabel()) f_->addLabel(l, "$Lsw");
    emitCompareTree(s.rootIndex, s.root, s.runs, s.dflt, balanced);
    ctx_->count(balanced ? "search-trees" : "cascades");
    ctx_->count("cases", s.ncases);
    ctx_->remark(s.rootBlock, balanced ? "search-tree" : "cascade",
                 c.where + ": " + std::to_string(s.runs.size()) + " runs, " + std::to_string(balanced ? bstDepth(s.runs.size()) : s.runs.size()) +
                     " tests on the longest path",
                 {{"line", double(s.root.bra->loc().line)}, {"cases", double(s.ncases)}, {"runs", double(s.runs.size())}});
  }

  // Replaces the root's test with a balanced search tree over `runs` (or a cascade, one test
  // per run in order): `setp.gt` splits, then per run an equality or, for a run of several
  // values, a range check on the selector minus the run's first value. Every path that
  // matches no run ends at the default. The new blocks follow the root, each falling through
  // to the next.
  void emitCompareTree(size_t rootIndex, const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt, bool balanced) {
    BasicBlock* cur = f_->blocks()[rootIndex];
    removeRootNode(*f_, cur, root);
    size_t insertAt = rootIndex + 1;
    auto& blocks = f_->blocks();
    auto start = [&](BasicBlock* b) {
      blocks.insert(blocks.begin() + long(insertAt++), b);
      cur = b;
    };
    auto branchOn = [&](RegId p, BasicBlock* to) {
      Instruction* b = append(cur, root, buildBra(*f_, to->label(), p, false, nullptr));
      tried_.insert(b);  // the new tree is not a switch to lower again
      start(f_->createBlock());
    };
    auto testRun = [&](const Run& r) { branchOn(emitRunPredicate(*f_, cur, root, r), r.target); };
    auto toDefault = [&] {
      append(cur, root, buildBra(*f_, dflt->label(), kNoReg, false, nullptr));
    };
    auto tree = [&](auto&& self, size_t lo, size_t hi) -> void {
      if (!balanced || hi - lo <= kLeafRuns) {
        for (size_t k = lo; k < hi; ++k) testRun(runs[k]);
        toDefault();
        return;
      }
      size_t mid = lo + (hi - lo) / 2;
      BasicBlock* right = f_->createBlock();
      f_->addLabel(right, "$Lsw");
      branchOn(emitSetp(*f_, cur, root, CmpOp::Gt, selectorType(root), root.sel, selectorImm(root, runs[mid - 1].hi)), right);
      self(self, lo, mid);
      start(right);
      self(self, mid, hi);
    };
    tree(tree, 0, runs.size());
  }

  // ---- predicated switches (the plan and the code: SwitchPredicated.h) -----------------------

  void emitPredicatedSwitch(const SwitchShape& s, const Choice& c) {
    const PredicatedSwitch& ps = *s.predicated;
    emitPredicated(*f_, s.rootIndex, s.root, s.runs, s.dflt, ps, caseMasks_);
    ctx_->count("predicated");
    ctx_->count("cases", s.ncases);
    ctx_->remark(s.rootBlock, "predicate",
                 c.where + ": " + std::to_string(ps.blocks.size()) + " blocks, " + std::to_string(ps.size) + " instructions (" +
                     std::to_string(ps.unguarded.size()) + " unguarded), no branch (" + c.why + ")",
                 {{"line", double(s.root.bra->loc().line)}, {"cases", double(s.ncases)}, {"instructions", double(ps.size)}});
  }

  Function* f_ = nullptr;
  FunctionAnalysisManager* am_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  BranchTargetTables tables_;
  std::optional<SwitchTreeReader> reader_;  // over tables_ and pinned_
  std::unordered_set<const Instruction*> tried_;
  int64_t minCases_ = 4, maxSpan_ = 256, budget_ = 64, maxTableBytes_ = 1024;
  bool valueTable_ = true, scoped_ = false;
  SwitchPolicy policy_;  // the knobs the choice reads (`lowering` parsed)
  bool speculate_ = true, caseMasks_ = true, hotFirst_ = true;
  int64_t tailLimit_ = 0;
  double minDensity_ = 0.4;
};

}  // namespace

PassInfo switchOptPassInfo() {
  return {"switch-opt",
          "a tree or cascade of compares of one register against constants (brx.idx tables included) becomes a jump table, a "
          "value table, a balanced search tree, a cascade or predicated straight-line code",
          "003, DoSwitchOpt (phases 14 and 30)",
          {
              {"min-cases", KnobType::Int, "4", "fewest cases (values that do not reach the default) for a jump table"},
              {"min-density", KnobType::Float, "0.4", "fewest cases per value of the table's span"},
              {"max-span", KnobType::Int, "256", "most entries of one table"},
              {"budget", KnobType::Int, "64", "most compare tests gathered into one switch (the seed's SwitchOptBudget)"},
              {"value-table", KnobType::Bool, "true", "a switch whose cases only assign constants becomes a table of those constants and loads"},
              {"max-table-bytes", KnobType::Int, "1024", "largest value table"},
              {"lowering", KnobType::Choice, "auto",
               "auto: a value table, or predication of a dense switch on a divergent selector within predicate-limit when its "
               "predicates cost less than the branches, else a table where the cost model allows it, else a "
               "balanced search tree for a uniform selector when it saves bst-gain tests; table, bst, cascade or predicate: that "
               "lowering for every switch found (tables still within max-span)",
               false, "auto table bst cascade predicate"},
              {"predicate-limit", KnobType::Int, "32",
               "auto without a profile, divergent dense selector: predicate the whole switch when its case bodies hold at most this many "
               "instructions and its predicates cost less than a table's branching (0: never)"},
              {"bst-gain", KnobType::Int, "2", "tests a balanced search tree must save on the longest path to replace a tree (auto)"},
              {"hot-first", KnobType::Bool, "true",
               "with a profile in which no test of the tree split a warp: a jump table may test the run most executions reach "
               "first, when that costs fewer expected warp instructions"},
              {"tail-limit", KnobType::Int, "2",
               "a jump table on a uniform selector: copy a function end into each case that jumps to it when at most this many "
               "of its instructions remain to copy after what the cases do not touch moves before the table (0: never)"},
              {"speculate", KnobType::Bool, "true",
               "predicated switches leave a case's private temporaries, and the first write of a register dead after the switch, unguarded (only values that leave the case, memory and effects take its guard)"},
              {"case-masks", KnobType::Bool, "true",
               "predicated switches over at most 32 values may test a target's values as bits of a case mask (one LOP3 per target)"},
          },
          [] { return std::make_unique<SwitchOpt>(); }};
}

}  // namespace ptxopt
