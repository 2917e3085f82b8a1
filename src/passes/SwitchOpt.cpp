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
// Choice (knob `lowering`: `auto`, or one form forced), in this order:
//  * auto with a branch profile: the form with the fewest expected warp instructions
//    (SwitchCosts.h) among value table, jump table, jump table testing its hot run first
//    (`hot-first`), predicated switch, balanced search tree (uniform selector), or the tree;
//  * auto otherwise: a value table (SwitchValueTable.h) when the table cost model (`min-cases`,
//    `max-span`, `min-density`) allows a table and every case only assigns constants;
//  * then, on a divergent selector: a predicated switch when the cost model allows a table,
//    the bodies hold at most `predicate-limit` instructions, no `mov` in the function writes a
//    constant to the selector, and the predicates cost less than a table's branching; a switch
//    the cost model refuses is kept;
//  * then a root brx.idx (a jump table already) and a tree with LLVM's bit tests are kept, and
//    a switch on a uniform selector that the cost model refuses becomes a balanced search tree
//    when that saves `bst-gain` tests on the longest path, and is kept otherwise;
//  * forced `predicate`: a predicated switch, or kept; forced `bst` or `cascade`: that tree;
//  * last, a value table where one was planned (so also for a forced `table`, or when the
//    profile picked a jump table); else, unless the tree is a root brx.idx or a range check and
//    a brx.idx alone (a jump table already), a jump table: the index (the selector minus the
//    first case), a range check to the default, and a brx.idx over the span in a new block. On
//    a uniform selector the function's end may then be copied into the cases (SwitchTails.h,
//    `tail-limit`).
// The old nodes stay where anything else reaches them; branch-opt and dce remove the rest. In a
// function where a { } scope holds blocks nothing moves between blocks (no sunk constants,
// value tables, predicated switches or copied ends); jump tables and compare trees are still
// built there.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Semantics.h"
#include "ptxopt/passes/Passes.h"

#include "IfRegion.h"
#include "CaseConstants.h"
#include "SwitchCosts.h"
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
    lowering_ = k.getString("lowering");
    bstGain_ = k.getInt("bst-gain");
    predicateLimit_ = k.getInt("predicate-limit");
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
  bool lower(size_t rootIndex, const SwitchNode& root, const Liveness& lv) {
    BasicBlock* rootBlock = f_->blocks()[rootIndex];
    const CfgInfo& cfg = am_->get<CfgAnalysis>();
    const DominatorTree& dom = am_->get<DominatorAnalysis>();
    // The tree: tests on the same selector with the same signedness, by block.
    NodesByBlock tests;
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
      return false;
    };
    if (tests.size() < 2 && !brxRoot) return false;  // a plain branch, not a switch
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
    std::vector<Run> runs;
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
    int64_t ncases = 0;
    for (const Run& r : runs) ncases += r.hi - r.lo + 1;
    int64_t first = runs.front().lo, last = runs.back().hi, span = last - first + 1;
    double density = double(ncases) / double(span);
    where += ": " + std::to_string(ncases) + " cases over " + std::to_string(span) + " values";
    // Each value of a table's span and its target, where a table is possible.
    std::map<int64_t, BasicBlock*> cases;
    if (span <= maxSpan_)
      for (const Run& r : runs)
        for (int64_t v = r.lo; v <= r.hi; ++v) cases[v] = r.target;
    // What speaks against a table.
    std::string costWhy;
    // (A default chosen among the cases of a bounded selector counts as a case: every value of
    // the domain has a case.)
    if ((chosenDefault ? typeMax - typeMin + 1 : ncases) < minCases_)
      costWhy = std::to_string(ncases) + " cases against min-cases " + std::to_string(minCases_);
    else if (span > maxSpan_)
      costWhy = "a span of " + std::to_string(span) + " against max-span " + std::to_string(maxSpan_);
    else if (density < minDensity_)
      costWhy = "density " + std::to_string(density).substr(0, 4) + " against min-density " + std::to_string(minDensity_).substr(0, 4);
    const bool divergent = !uniformSelector(rootBlock);
    const bool tryPredicate = lowering_ == "predicate" || (lowering_ == "auto" && divergent && predicateLimit_ > 0);
    const bool profiled = lowering_ == "auto" && ctx_->branchCounts(*root.bra) != nullptr;
    if (lowering_ == "auto" && !costWhy.empty() && divergent && !tryPredicate && !profiled) return refuse("cost", costWhy);
    if (lowering_ == "table" && span > maxSpan_) return refuse("cost", costWhy);
    // The targets, in block-id order (the order the labels added below are numbered in).
    BlockSet targets{dflt};
    for (const Run& r : runs) targets.insert(r.target);
    // The tests' predicates no longer get their values.
    for (auto& [b, t] : tests)
      for (BasicBlock* l : targets) {
        if ((t.pred != kNoReg && lv.liveIn[l->id()].test(t.pred)) || (t.add && lv.liveIn[l->id()].test(t.tmp)))
          return refuse("live", "the " + std::string(t.pred != kNoReg && lv.liveIn[l->id()].test(t.pred) ? "predicate" : "offset selector") +
                                    " of the test at line " + std::to_string(t.bra->loc().line) + " is read later");
        for (RegId r : t.temps)
          if (lv.liveIn[l->id()].test(r))
            return refuse("live", "a register the bit test at line " + std::to_string(t.bra->loc().line) + " computes is read later");
      }
    for (BasicBlock* l : targets)
      if (!l->hasLabel() && l == f_->entry()) return refuse("entry", "a case reaches the entry block");

    // The branch-free lowerings' plans, where they apply.
    std::string vtWhy = "value tables are off", psWhy;
    std::optional<ValueTable> vt;
    if (valueTable_ && scoped_) vtWhy = "a { } scope holds blocks of the function";
    else if (valueTable_ && span <= maxSpan_) {
      vt = planValueTable(*f_, *reader_, rootBlock, root, tests, cases, dflt, first, last, maxTableBytes_, vtWhy);
      if (vt) vt->divergent = am_->get<UniformityAnalysis>().isDivergentBranch(rootBlock);
    }
    else if (valueTable_) vtWhy = "a span over max-span";
    std::optional<PredicatedSwitch> ps;
    if (scoped_) psWhy = "a { } scope holds blocks of the function";
    else if (tryPredicate || profiled) ps = planPredicated(rootBlock, tests, runs, dflt, lv, psWhy);
    auto doValueTable = [&] {
      emitValueTable(rootIndex, root, *vt, first, span, where, density);
      ctx_->count("cases", ncases);
      return true;
    };
    auto doPredicate = [&](const std::string& why) {
      emitPredicated(rootIndex, root, runs, dflt, *ps);
      ctx_->count("predicated");
      ctx_->count("cases", ncases);
      ctx_->remark(rootBlock, "predicate",
                   where + ": " + std::to_string(ps->blocks.size()) + " blocks, " + std::to_string(ps->size) + " instructions (" +
                       std::to_string(ps->unguarded.size()) + " unguarded), no branch (" + why + ")",
                   {{"line", double(root.bra->loc().line)}, {"cases", double(ncases)}, {"instructions", double(ps->size)}});
      return true;
    };
    std::string mode = lowering_;
    long hotRun = -1;  // with a profile: the run a jump table tests first
    // With a profile (auto): the lowering with the fewest expected warp instructions.
    if (mode == "auto") {
      // Per execution of the root: a value table issues its index, range check, address and one
      // load per register (and the default's test); the predicated form its predicates and
      // every body.
      std::optional<double> vtCost, psCost;
      if (vt) vtCost = 5.0 + double(vt->columns.size()) + (vt->branchDefault ? 2.0 : 0.0);
      if (ps) psCost = double(planPredicates(root, runs, dflt, *ps, caseMasks_).cost + ps->size);
      if (std::optional<ProfileCosts> pc = profileCosts(*ctx_, *reader_, tests, root, runs, vtCost, psCost, hotFirst_)) {
        // On a tie the earlier wins: the value table, then the jump table (tied with the
        // predicated form on switch_holes before case masks, it measured 201 against 220),
        // then the predicated switch, then the trees.
        std::vector<std::pair<double, std::string>> options;
        if (vt) options.push_back({pc->valueTable, "value-table"});
        if (span <= maxSpan_ && !brxRoot) options.push_back({pc->table, "table"});
        if (span <= maxSpan_ && !brxRoot && pc->hotRun >= 0) options.push_back({pc->hot, "hot-first"});
        if (ps) options.push_back({pc->predicate, "predicate"});
        if (!divergent && !brxRoot) options.push_back({pc->bst, "bst"});
        options.push_back({pc->tree, "keep"});
        std::stable_sort(options.begin(), options.end(), [](auto& a, auto& b) { return a.first < b.first; });
        std::string figures;
        for (auto& [c, n] : options) figures += (figures.empty() ? "" : ", ") + n + " " + std::to_string(int64_t(c));
        where += " (profile, expected warp instructions: " + figures + ")";
        ctx_->count("profile-decisions");
        std::string pick = options.front().second;
        if (pick == "keep") return refuse("profile", brxRoot ? "the brx.idx costs least" : "the tree costs least");
        if (pick == "value-table") return doValueTable();
        if (pick == "predicate") return doPredicate("the profile");
        if (pick == "hot-first") {
          hotRun = pc->hotRun;
          where += ", the run " + std::to_string(runs[size_t(hotRun)].lo) + ".." + std::to_string(runs[size_t(hotRun)].hi) + " tested first";
          pick = "table";
        }
        mode = pick;
      }
    }
    // Value tables first: no control flow and the fewest instructions.
    if (mode == "auto" && costWhy.empty() && vt) return doValueTable();
    // Predication: every case body, guarded by its own predicate, in one straight line.
    if (tryPredicate && mode == lowering_) {
      if (ps && lowering_ == "auto" && ps->size > predicateLimit_)
        psWhy = std::to_string(ps->size) + " instructions in the bodies against predicate-limit " + std::to_string(predicateLimit_);
      // A selector that some path sets to a constant: ptxas threads those paths straight to
      // their cases (sparse_switch), where predication would make them run every case.
      if (ps && psWhy.empty() && lowering_ == "auto")
        for (const BasicBlock* b : f_->blocks())
          for (const Instruction* i : b->insts())
            if (i->is(Opcode::Mov) && i->numOperands() == 2 && i->operand(0).isReg() && RegId(i->operand(0).id) == root.sel &&
                i->operand(1).isImm())
              psWhy = "the selector is a constant on the path through line " + std::to_string(i->loc().line) +
                      "; ptxas threads such paths to their case";
      // Then the predicates must cost less than the branching they replace, for a warp whose
      // lanes reach every target (each body runs either way): a table's fixed part and a jump
      // per target to the join, or a tree's setp and bra per test, a jump per target and the
      // reconvergence.
      // Only a switch dense enough for a table: the lanes of a warp spread over a sparse
      // switch's few hit values less (sparse_switch), and only a profile tells.
      if (ps && psWhy.empty() && lowering_ == "auto" && !costWhy.empty()) psWhy = costWhy + " (a sparse switch is predicated only with a profile)";
      if (ps && psWhy.empty() && lowering_ == "auto") {
        unsigned setup = planPredicates(root, runs, dflt, *ps, caseMasks_).cost, branching = unsigned(targets.size()) + PtxasModel::tableOverhead(true);
        if (setup >= branching)
          psWhy = std::to_string(setup) + " instructions of predicates against " + std::to_string(branching) + " of branching (a table)";
        else
          where += ", " + std::to_string(setup) + " instructions of predicates against " + std::to_string(branching) + " of branching";
      }
      if (ps && psWhy.empty()) return doPredicate(divergent ? "divergent selector" : "uniform selector");
      if (lowering_ == "predicate") return refuse("predicate", psWhy);
      ctx_->remark(rootBlock, "no-predicate", where + ": " + psWhy, {{"line", double(root.bra->loc().line)}});
      if (!costWhy.empty() && divergent) return refuse("cost", costWhy);
    }
    // A brx.idx kept in range by an and/rem is a jump table already; a compare tree would only
    // add tests.
    const char* brxAlready = "a brx.idx whose index an and or rem keeps in its table: a jump table already";
    if (brxRoot && mode == "auto") return refuse("table", brxAlready);
    // LLVM's bit tests already test once per target (shl, and, setp): measured on a clang
    // kernel with two targets over eleven values, a jump table costs 100 estimated SASS
    // instructions where the bit tests, which ptxas then if-converts, cost 84 (predicated with
    // case masks, which auto tries first on a divergent selector, 80).
    if (mode == "auto")
      for (auto& [b, t] : tests)
        if (t.bitTest) return refuse("bit-tests", "LLVM's bit tests test once per target already");
    // Compare trees: a balanced search tree over the runs of values with one target, or a
    // linear cascade. In auto mode a tree the table's cost model refused is rebuilt balanced
    // when the selector is uniform (the warp walks one path) and that saves `bst-gain` tests
    // on the longest path.
    if (mode == "auto" && !costWhy.empty()) {
      unsigned now = 0;
      for (int64_t v : edges) now = std::max(now, nodesOnPath(tests, rootBlock, v));
      unsigned balanced = bstDepth(runs.size());
      if (balanced + unsigned(bstGain_) > now)
        return refuse("cost", costWhy + "; a balanced tree would test " + std::to_string(balanced) + " times on its longest path, the tree " +
                                  std::to_string(now));
      mode = "bst";
      where += ", longest path " + std::to_string(now) + " tests";
    }
    if (mode == "bst" || mode == "cascade") {
      for (BasicBlock* l : targets)
        if (!l->hasLabel()) f_->addLabel(l, "$Lsw");
      emitCompareTree(rootIndex, root, runs, dflt, mode == "bst");
      ctx_->count(mode == "bst" ? "search-trees" : "cascades");
      ctx_->count("cases", ncases);
      ctx_->remark(rootBlock, mode == "bst" ? "search-tree" : "cascade",
                   where + ": " + std::to_string(runs.size()) + " runs, " + std::to_string(mode == "bst" ? bstDepth(runs.size()) : runs.size()) +
                       " tests on the longest path",
                   {{"line", double(root.bra->loc().line)}, {"cases", double(ncases)}, {"runs", double(runs.size())}});
      return true;
    }
    if (vt) return doValueTable();
    if (valueTable_) ctx_->remark(rootBlock, "no-value-table", where + ": " + vtWhy, {{"line", double(root.bra->loc().line)}});

    // A range check and the brx.idx behind it are a jump table already.
    if (brxRoot) return refuse("table", brxAlready);
    if (tests.size() == 2) {
      for (auto& [b, t] : tests)
        if (t.isBrx()) return refuse("table", "a range check and a brx.idx: a jump table already");
    }
    // Lowering.
    for (BasicBlock* l : targets)
      if (!l->hasLabel()) f_->addLabel(l, "$Lsw");
    RegId idx = emitIndex(rootBlock, root, first);
    auto& blocks = f_->blocks();
    size_t dispatchAt = rootIndex + 1;
    BasicBlock* checkBlock = rootBlock;
    if (hotRun >= 0) {
      // The hot run's test ends the root; the range check gets a block of its own.
      const Run& h = runs[size_t(hotRun)];
      Instruction* br = f_->createInstruction(Opcode::Bra);
      br->addOperand(Operand::label(h.target->label()));
      br->setGuard(emitRunPredicate(rootBlock, root, h), false);
      append(rootBlock, root, br);
      tried_.insert(br);
      checkBlock = f_->createBlock();
      blocks.insert(blocks.begin() + long(dispatchAt++), checkBlock);
      ctx_->count("hot-first");
    }
    emitRangeCheck(checkBlock, root, idx, span, dflt);
    BasicBlock* dispatch = f_->createBlock();
    Instruction* table = f_->createInstruction(Opcode::BranchTargets);
    uint32_t tableName = f_->parent()->intern(f_->freshName("$Lswt"));
    table->setPayload(tableName);
    for (int64_t v = first; v <= last; ++v) {
      auto it = cases.find(v);
      table->addOperand(Operand::label((it == cases.end() ? dflt : it->second)->label()));
    }
    Instruction* brx = f_->createInstruction(Opcode::BrxIdx);
    brx->addOperand(Operand::reg(idx));
    brx->addOperand(Operand::symbol(tableName));
    for (Instruction* i : {table, brx}) {
      place(root, i)->setParent(dispatch);
      dispatch->append(i);
    }
    blocks.insert(blocks.begin() + long(dispatchAt), dispatch);
    ctx_->count("jump-tables");
    ctx_->count("cases", cases.size());
    if (!divergent && !scoped_)
      if (unsigned n = copyFunctionEnd(*f_, *ctx_, targets, rootBlock, dispatch, lv.liveOut[rootBlock->id()], tailLimit_))
        where += ", the function's end copied into " + std::to_string(n) + " cases";
    ctx_->remark(rootBlock, "jump-table", where + ", density " + std::to_string(density).substr(0, 4),
                 {{"line", double(root.bra->loc().line)}, {"cases", double(cases.size())}, {"span", double(span)}});
    return true;
  }

  // ---- compare trees ----------------------------------------------------------------------

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

  // The selector's signed-or-unsigned type as the tree reads it, and its unsigned type.
  static ScalarType selectorType(const SwitchNode& root) {
    if (root.bits == 16) return root.isSigned ? ScalarType::S16 : ScalarType::U16;
    return root.isSigned ? ScalarType::S32 : ScalarType::U32;
  }
  static ScalarType unsignedType(const SwitchNode& root) { return root.bits == 16 ? ScalarType::U16 : ScalarType::U32; }
  // A value of the tree's domain as an immediate of the selector's type.
  static Operand selectorImm(const SwitchNode& root, int64_t v) {
    if (root.bits == 16) return Operand::imm(root.isSigned ? int64_t(int16_t(v)) : int64_t(uint16_t(v)));
    return Operand::imm(root.isSigned ? int64_t(int32_t(v)) : int64_t(uint32_t(v)));
  }

  // Appends `setp.CMP.TY %p, ON, C` to `b`; returns %p.
  RegId emitSetp(BasicBlock* b, const SwitchNode& root, CmpOp cmp, ScalarType ty, RegId on, Operand c) {
    RegId p = f_->addRegister(ScalarType::Pred, "%swp");
    Instruction* s = f_->createInstruction(Opcode::Setp);
    s->addMod(cmpMod(cmp));
    s->addMod(typeMod(ty));
    s->addOperand(Operand::reg(p));
    s->addOperand(Operand::reg(on));
    s->addOperand(c);
    append(b, root, s);
    return p;
  }

  // Appends to `b` the predicate "the selector is in run `r`": an equality for one value, else
  // the selector minus the run's first value, unsigned below the run's length.
  RegId emitRunPredicate(BasicBlock* b, const SwitchNode& root, const Run& r) {
    if (r.lo == r.hi) return emitSetp(b, root, CmpOp::Eq, selectorType(root), root.sel, selectorImm(root, r.lo));
    RegId t = f_->addRegister(unsignedType(root), "%swi");
    Instruction* sub = f_->createInstruction(Opcode::Sub);
    sub->addMod(typeMod(selectorType(root)));
    sub->addOperand(Operand::reg(t));
    sub->addOperand(Operand::reg(root.sel));
    sub->addOperand(selectorImm(root, r.lo));
    append(b, root, sub);
    return emitSetp(b, root, CmpOp::Lt, unsignedType(root), t, Operand::imm(r.hi - r.lo + 1));
  }

  // Appends a table's range check to `b`: `setp.gt.u32 %p, IDX, SPAN-1; @%p bra DEFAULT` (a value
  // below the table's first wrapped around to a large unsigned number).
  void emitRangeCheck(BasicBlock* b, const SwitchNode& root, RegId idx, int64_t span, BasicBlock* dflt) {
    RegId p = emitSetp(b, root, CmpOp::Gt, ScalarType::U32, idx, Operand::imm(span - 1));
    Instruction* br = f_->createInstruction(Opcode::Bra);
    br->addOperand(Operand::label(dflt->label()));
    br->setGuard(p, false);
    append(b, root, br);
    tried_.insert(br);  // with the brx.idx behind it, a switch already lowered
  }

  // Replaces the root's test with a balanced search tree over `runs` (or a cascade, one test
  // per run in order): `setp.gt` splits, then per run an equality or, for a run of several
  // values, a range check on the selector minus the run's first value. Every path that
  // matches no run ends at the default. The new blocks follow the root, each falling through
  // to the next.
  void emitCompareTree(size_t rootIndex, const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt, bool balanced) {
    BasicBlock* cur = f_->blocks()[rootIndex];
    removeRootNode(cur, root);
    size_t insertAt = rootIndex + 1;
    auto& blocks = f_->blocks();
    auto start = [&](BasicBlock* b) {
      blocks.insert(blocks.begin() + long(insertAt++), b);
      cur = b;
    };
    auto branchOn = [&](RegId p, BasicBlock* to) {
      Instruction* b = f_->createInstruction(Opcode::Bra);
      b->addOperand(Operand::label(to->label()));
      b->setGuard(p, false);
      append(cur, root, b);
      tried_.insert(b);  // the new tree is not a switch to lower again
      start(f_->createBlock());
    };
    auto testRun = [&](const Run& r) { branchOn(emitRunPredicate(cur, root, r), r.target); };
    auto toDefault = [&] {
      Instruction* b = f_->createInstruction(Opcode::Bra);
      b->addOperand(Operand::label(dflt->label()));
      append(cur, root, b);
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
      branchOn(emitSetp(cur, root, CmpOp::Gt, selectorType(root), root.sel, selectorImm(root, runs[mid - 1].hi)), right);
      self(self, lo, mid);
      start(right);
      self(self, mid, hi);
    };
    tree(tree, 0, runs.size());
  }

  // ---- predicated switches ------------------------------------------------------------------
  //
  // When every target leads to one join block through blocks of predicable instructions (a
  // chain: a case may fall through into the next), the switch becomes straight-line code: a
  // predicate per target (an equality or range check per run, or-ed over the target's runs),
  // the default's as none of them, then each block of the chains guarded by the or of the
  // predicates of the targets whose chain holds it, a block after the blocks that lead into
  // it. A thread runs exactly the blocks of its own target's chain, in order. Every predicate
  // is computed before any block runs (a block may overwrite the selector).

  struct PredicatedSwitch {
    BasicBlock* join = nullptr;
    std::vector<BasicBlock*> blocks;               // the chains' blocks, in the order they run
    BlockMap<BlockSet> by;                         // block -> the targets whose chain holds it
    int64_t size = 0;                              // instructions in the blocks
    std::set<const Instruction*> unguarded;        // private temporaries, run for every lane
  };

  // The instructions of `b` without its closing unconditional bra, if every one is predicable
  // and has no guard and `b` has one successor; nullopt otherwise.
  std::optional<std::vector<Instruction*>> straightLine(BasicBlock* b) const {
    if (b->succs().size() != 1) return std::nullopt;
    std::vector<Instruction*> real;
    for (Instruction* i : b->insts()) {
      if (i == b->terminator() && i->is(Opcode::Bra) && !i->hasGuard()) continue;
      if (!whyNotPredicable(*i).empty() || i->hasGuard()) return std::nullopt;
      real.push_back(i);
    }
    return real;
  }

  std::optional<PredicatedSwitch> planPredicated(BasicBlock* rootBlock, const NodesByBlock& tests,
                                                 const std::vector<Run>& runs, BasicBlock* dflt, const Liveness& lv, std::string& why) {
    BlockSet targets{dflt};
    for (const Run& r : runs) targets.insert(r.target);
    // Each target's walk through straight-line blocks (at most 8).
    BlockMap<std::vector<BasicBlock*>> walks;
    for (BasicBlock* t : targets) {
      std::vector<BasicBlock*>& w = walks[t];
      for (BasicBlock* b = t; w.size() <= 8; b = reader_->skipJumps(b->succs()[0].to)) {
        if (std::find(w.begin(), w.end(), b) != w.end()) break;
        w.push_back(b);
        if (!straightLine(b) || b == rootBlock || tests.count(b)) break;
      }
    }
    // The join: the first block of the first walk that every walk reaches.
    PredicatedSwitch ps;
    for (BasicBlock* b : walks.begin()->second) {
      bool everywhere = true;
      for (auto& [t, w] : walks) everywhere &= std::find(w.begin(), w.end(), b) != w.end();
      if (everywhere) {
        ps.join = b;
        break;
      }
    }
    if (!ps.join) {
      why = "the cases do not lead through straight-line code to one block";
      return std::nullopt;
    }
    if (ps.join == rootBlock || tests.count(ps.join)) {
      why = "the cases go back into the switch";
      return std::nullopt;
    }
    BlockMap<size_t> depth;  // blocks to the join
    for (auto& [t, w] : walks) {
      size_t at = std::find(w.begin(), w.end(), ps.join) - w.begin();
      for (size_t k = 0; k < at; ++k) {
        if (w[k] == rootBlock || tests.count(w[k])) {
          why = "a case leads back into the switch";
          return std::nullopt;
        }
        ps.by[w[k]].insert(t);
        depth[w[k]] = at - k;
      }
    }
    if (ps.by.empty()) {
      why = "no case does anything";
      return std::nullopt;
    }
    for (auto& [b, ts] : ps.by) ps.size += int64_t(straightLine(b)->size());
    // Farther from the join first (a block after every block that leads into it), then layout.
    for (BasicBlock* b : f_->blocks())
      if (ps.by.count(b)) ps.blocks.push_back(b);
    std::stable_sort(ps.blocks.begin(), ps.blocks.end(), [&](BasicBlock* a, BasicBlock* b) { return depth[a] > depth[b]; });
    // An instruction of block B may run for every lane when it cannot fault or have an effect
    // and each register it writes is a private temporary of B: written nowhere else in the
    // function and live neither at the switch nor at the join. A lane outside B's guard then
    // never reads what it wrote: in the branching program such a lane would reach a read only
    // through a definition, and every definition is in B, which it does not pass. Guarded, the
    // temporary would cost ptxas a select to keep each other lane's old value.
    if (speculate_) {
      std::unordered_map<RegId, const BasicBlock*> defBlock;  // nullptr: written in several blocks
      for (const BasicBlock* b : f_->blocks())
        for (const Instruction* i : b->insts())
          i->forEachDefReg([&](RegId r) {
            auto [it, fresh] = defBlock.emplace(r, b);
            if (!fresh && it->second != b) it->second = nullptr;
          });
      for (BasicBlock* b : ps.blocks) {
        const std::vector<Instruction*> body = *straightLine(b);
        for (const Instruction* i : body) {
          if (!i->isSpeculatable()) continue;
          bool ok = true;
          i->forEachDefReg([&](RegId r) {
            ok = ok && defBlock.at(r) == b && !lv.liveIn[rootBlock->id()].test(r) && !lv.liveIn[ps.join->id()].test(r);
          });
          if (ok) ps.unguarded.insert(i);
        }
      }
      // So may the first write in the line of a register dead after the root block (the first
      // write of a switch's result, dense_switch).
      std::unordered_set<RegId> written;
      for (BasicBlock* b : ps.blocks) {
        const std::vector<Instruction*> body = *straightLine(b);
        for (const Instruction* i : body) {
          if (firstWriteMayRunUnguarded(*i, written, lv.liveOut[rootBlock->id()])) ps.unguarded.insert(i);
          i->forEachDefReg([&](RegId r) { written.insert(r); });
        }
      }
    }
    return ps;
  }

  void emitPredicated(size_t rootIndex, const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt, const PredicatedSwitch& ps) {
    BasicBlock* rootBlock = f_->blocks()[rootIndex];
    removeRootNode(rootBlock, root);
    if (!ps.join->hasLabel()) f_->addLabel(ps.join, "$Lsw");
    auto logic = [&](Opcode op, RegId a, RegId b) {
      RegId p = f_->addRegister(ScalarType::Pred, "%swp");
      Instruction* o = f_->createInstruction(op);
      o->addMod(typeMod(ScalarType::Pred));
      o->addOperand(Operand::reg(p));
      o->addOperand(Operand::reg(a));
      if (b != kNoReg) o->addOperand(Operand::reg(b));
      append(rootBlock, root, o);
      return p;
    };
    const PredicatePlan plan = planPredicates(root, runs, dflt, ps, caseMasks_);
    BlockMap<RegId> pred;
    RegId bit = kNoReg;  // 1 << (selector - first), when some predicate tests the case masks
    if (plan.bit) {
      RegId t = root.sel;
      if (plan.first != 0) {
        t = f_->addRegister(ScalarType::U32, "%swi");
        emitBinary(rootBlock, root, Opcode::Sub, ScalarType::S32, t, Operand::reg(root.sel), selectorImm(root, plan.first));
      }
      bit = f_->addRegister(ScalarType::U32, "%swi");
      emitBinary(rootBlock, root, Opcode::Shl, ScalarType::B32, bit, Operand::imm(1), Operand::reg(t));
    }
    // A masked target's predicate: its bits of the case mask. Others: one predicate per run,
    // or-ed; the default's is none of them.
    for (const Run& r : runs) {
      if (plan.masked.count(r.target)) {
        if (!pred.count(r.target)) pred[r.target] = emitMaskTest(rootBlock, root, bit, caseMask(runs, plan.first, r.target), CmpOp::Ne);
        continue;
      }
      RegId p = emitRunPredicate(rootBlock, root, r);
      auto [it, fresh] = pred.emplace(r.target, p);
      if (!fresh) it->second = logic(Opcode::Or, it->second, p);
    }
    if (dflt != ps.join) {
      if (plan.bit)
        pred[dflt] = emitMaskTest(rootBlock, root, bit, caseMask(runs, plan.first, nullptr), CmpOp::Eq);
      else
        pred[dflt] = emitDefaultPredicate(rootBlock, root, runs, pred, logic);
    }
    // A block's guard: the or of the predicates of the targets whose chain holds it.
    for (BasicBlock* b : ps.blocks) {
      RegId g = kNoReg;
      for (BasicBlock* t : ps.by.at(b)) g = g == kNoReg ? pred.at(t) : logic(Opcode::Or, g, pred.at(t));
      std::vector<Instruction*> body = *straightLine(b);
      for (Instruction* i : body) {
        Instruction* c = f_->cloneInstruction(*i);
        if (!ps.unguarded.count(i)) c->setGuard(g, false);
        c->setParent(rootBlock);
        rootBlock->append(c);
      }
    }
    Instruction* toJoin = f_->createInstruction(Opcode::Bra);
    toJoin->addOperand(Operand::label(ps.join->label()));
    append(rootBlock, root, toJoin);
  }

  // How a predicated switch computes its predicates. With `bit`, the selector's bit
  // `1 << (selector - first)` is computed once (a 32-bit selector whose runs span at most 32
  // values; a value outside the span shifts the 1 out, since PTX clamps a shift by 32 or more to
  // 32, and a selector below `first` reads as a large unsigned amount), and the `masked`
  // targets and the default test it against their case masks: an `and` and a `setp` against 0,
  // which ptxas fuses into one LOP3 writing the predicate. The other targets test their runs.
  struct PredicatePlan {
    bool bit = false;
    int64_t first = 0;
    BlockSet masked;
    unsigned cost = 0;  // instructions of the predicates, the ors of shared blocks' guards included
  };

  // The cheaper of the two ways (ties keep the runs): runs only, where a target costs a setp per
  // run, a sub per run of several values and an or per extra run, and the default its form's
  // count; or the shared bit (the sub and the shl), where each target whose runs cost two or
  // more is masked and the default tests the mask of every case. Counted as ptxas 13.0 emits
  // them (switch_holes): the shl two (the 1 goes into a register first), a mask test one (one
  // LOP3 writes the predicate of the `and` and the `setp`).
  static PredicatePlan planPredicates(const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt, const PredicatedSwitch& ps,
                                      bool caseMasks) {
    BlockMap<unsigned> runCost;
    for (const Run& r : runs) {
      auto [it, fresh] = runCost.emplace(r.target, 0);
      it->second += (r.lo == r.hi ? 1 : 2) + (fresh ? 0 : 1);
    }
    unsigned shared = 0;
    for (auto& [b, ts] : ps.by) shared += unsigned(ts.size()) - 1;
    PredicatePlan plan;
    plan.first = runs.front().lo;
    plan.cost = shared + (dflt != ps.join ? defaultForm(root, runs, runCost.size()).second : 0);
    for (auto& [t, c] : runCost) plan.cost += c;
    const int64_t span = runs.back().hi - plan.first + 1;
    if (!caseMasks || root.bits != 32 || span > 32) return plan;
    PredicatePlan masked;
    masked.bit = true;
    masked.first = plan.first;
    masked.cost = shared + (plan.first != 0 ? 1 : 0) + 2 + (dflt != ps.join ? 1 : 0);
    for (auto& [t, c] : runCost) {
      if (c >= 2) masked.masked.insert(t);
      masked.cost += std::min(c, 1u);
    }
    return masked.cost < plan.cost ? masked : plan;
  }

  // The bits of the values (minus `first`) whose target is `t`, or of every case value when `t`
  // is null.
  static uint32_t caseMask(const std::vector<Run>& runs, int64_t first, const BasicBlock* t) {
    uint32_t mask = 0;
    for (const Run& r : runs)
      if (!t || r.target == t)
        for (int64_t v = r.lo; v <= r.hi; ++v) mask |= 1u << unsigned(v - first);
    return mask;
  }

  // Appends `OP.TY D, X, Y` to `b`.
  void emitBinary(BasicBlock* b, const SwitchNode& root, Opcode o, ScalarType ty, RegId d, Operand x, Operand y) {
    append(b, root, buildInstruction(*f_, o, ty, {Operand::reg(d), x, y}, root.bra));
  }

  // Appends `and.b32 %t, BIT, MASK; setp.CMP.b32 %p, %t, 0`; returns %p.
  RegId emitMaskTest(BasicBlock* b, const SwitchNode& root, RegId bit, uint32_t mask, CmpOp cmp) {
    RegId t = f_->addRegister(ScalarType::U32, "%swi");
    emitBinary(b, root, Opcode::And, ScalarType::B32, t, Operand::reg(bit), Operand::imm(int64_t(mask)));
    return emitSetp(b, root, cmp, ScalarType::B32, t, Operand::imm(0));
  }

  // Appends to `b` the default's predicate, "the selector is in none of the runs", in the
  // fewest instructions: when the runs leave no hole, the span's range check; when the span
  // has holes and fits in 32 values of a 32-bit selector, a test of bit (selector - first) of
  // the span's case mask (a shift by 32 or more, which every value outside the span gives
  // when read unsigned, leaves 0); otherwise the not of the or of the runs' predicates.
  enum class DefaultForm { Range, Mask, Chain };
  // How the default's predicate is computed for `runs` leading to `targets` blocks, and in how
  // many instructions.
  static std::pair<DefaultForm, unsigned> defaultForm(const SwitchNode& root, const std::vector<Run>& runs, size_t targets) {
    const int64_t first = runs.front().lo, span = runs.back().hi - first + 1;
    bool holes = false;
    for (size_t k = 1; k < runs.size(); ++k) holes |= runs[k].lo != runs[k - 1].hi + 1;
    const unsigned offset = first != 0 ? 1 : 0;
    if (!holes) return {DefaultForm::Range, 1 + offset};
    if (root.bits == 32 && span <= 32 && targets > 3 + offset) return {DefaultForm::Mask, 3 + offset};
    return {DefaultForm::Chain, unsigned(targets)};  // the ors over the targets' predicates, and the not
  }

  template <class Logic>
  RegId emitDefaultPredicate(BasicBlock* b, const SwitchNode& root, const std::vector<Run>& runs, const BlockMap<RegId>& pred,
                             Logic&& logic) {
    const int64_t first = runs.front().lo, last = runs.back().hi, span = last - first + 1;
    const DefaultForm form = defaultForm(root, runs, pred.size()).first;
    if (form == DefaultForm::Range) {
      // The complement of the run [first, last]: its check with >= instead of <.
      RegId t = root.sel;
      if (first != 0) {
        t = f_->addRegister(unsignedType(root), "%swi");
        Instruction* sub = f_->createInstruction(Opcode::Sub);
        sub->addMod(typeMod(selectorType(root)));
        sub->addOperand(Operand::reg(t));
        sub->addOperand(Operand::reg(root.sel));
        sub->addOperand(selectorImm(root, first));
        append(b, root, sub);
      }
      return emitSetp(b, root, CmpOp::Ge, unsignedType(root), t, Operand::imm(span));
    }
    if (form == DefaultForm::Mask) {
      const uint32_t mask = caseMask(runs, first, nullptr);
      RegId t = root.sel;
      if (first != 0) {
        t = f_->addRegister(ScalarType::U32, "%swi");
        emitBinary(b, root, Opcode::Sub, ScalarType::S32, t, Operand::reg(root.sel), selectorImm(root, first));
      }
      RegId bits = f_->addRegister(ScalarType::U32, "%swi");
      emitBinary(b, root, Opcode::Shr, ScalarType::B32, bits, Operand::imm(int64_t(mask)), Operand::reg(t));
      emitBinary(b, root, Opcode::And, ScalarType::B32, bits, Operand::reg(bits), Operand::imm(1));
      return emitSetp(b, root, CmpOp::Eq, ScalarType::U32, bits, Operand::imm(0));
    }
    RegId any = kNoReg;
    for (auto& [t, p] : pred) any = any == kNoReg ? p : logic(Opcode::Or, any, p);
    return logic(Opcode::Not, any, kNoReg);
  }

  static Instruction* place(const SwitchNode& root, Instruction* i) {
    i->setLoc(root.bra->loc());
    i->setDebugLoc(root.bra->debugLoc());
    return i;
  }

  Instruction* append(BasicBlock* b, const SwitchNode& root, Instruction* i) {
    place(root, i)->setParent(b);
    b->append(i);
    return i;
  }

  // Removes the root's test: its setp and branch, or a root brx.idx and its table's declaration
  // when no other brx.idx names the table.
  void removeRootNode(BasicBlock* b, const SwitchNode& root) {
    auto& rv = b->insts();
    rv.erase(std::find(rv.begin(), rv.end(), root.bra));
    if (root.setp) rv.erase(std::find(rv.begin(), rv.end(), root.setp));
    if (!root.bra->is(Opcode::BrxIdx) || !(root.bra->operand(1).kind == OperandKind::Symbol)) return;
    uint32_t table = root.bra->operand(1).id;
    for (const BasicBlock* o : f_->blocks())
      for (const Instruction* i : o->insts())
        if (i->is(Opcode::BrxIdx) && i->numOperands() == 2 && i->operand(1).kind == OperandKind::Symbol && i->operand(1).id == table && i != root.bra) return;
    for (auto it = rv.begin(); it != rv.end(); ++it)
      if ((*it)->is(Opcode::BranchTargets) && (*it)->payload() == table) {
        rv.erase(it);
        return;
      }
  }

  // Removes the root's test and appends the table index to the root: the selector minus the
  // first case, widened first when the selector has 16 bits (sign- or zero-extended as the
  // tests read it). A 32-bit selector whose table starts at 0 is its own index.
  RegId emitIndex(BasicBlock* rootBlock, const SwitchNode& root, int64_t first) {
    removeRootNode(rootBlock, root);
    RegId wide = root.sel;
    if (root.bits == 16) {
      wide = f_->addRegister(ScalarType::U32, "%swi");
      Instruction* widen = f_->createInstruction(Opcode::Cvt);
      widen->addMod(typeMod(root.isSigned ? ScalarType::S32 : ScalarType::U32));
      widen->addMod(typeMod(root.isSigned ? ScalarType::S16 : ScalarType::U16));
      widen->addOperand(Operand::reg(wide));
      widen->addOperand(Operand::reg(root.sel));
      append(rootBlock, root, widen);
    }
    if (first == 0) return wide;
    RegId idx = f_->addRegister(ScalarType::U32, "%swi");
    Instruction* sub = f_->createInstruction(Opcode::Sub);
    sub->addMod(typeMod(ScalarType::S32));
    sub->addOperand(Operand::reg(idx));
    sub->addOperand(Operand::reg(wide));
    sub->addOperand(Operand::imm(int64_t(int32_t(uint32_t(first)))));
    append(rootBlock, root, sub);
    return idx;
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
      Instruction* mn = f_->createInstruction(Opcode::Min);
      mn->addMod(typeMod(ScalarType::U32));
      mn->addOperand(Operand::reg(clamped));
      mn->addOperand(Operand::reg(idx));
      mn->addOperand(Operand::imm(span));
      append(rootBlock, root, mn);
      idx = clamped;
    }
    RegId base = f_->addRegister(ScalarType::U64, "%swa");
    RegId off = f_->addRegister(ScalarType::U64, "%swa");
    RegId addr = f_->addRegister(ScalarType::U64, "%swa");
    Instruction* mv = f_->createInstruction(Opcode::Mov);
    mv->addMod(typeMod(ScalarType::U64));
    mv->addOperand(Operand::reg(base));
    mv->addOperand(Operand::symbol(nameId));
    append(loads, root, mv);
    Instruction* mul = f_->createInstruction(Opcode::Mul);
    mul->addMod(Mod::Wide);
    mul->addMod(typeMod(ScalarType::U32));
    mul->addOperand(Operand::reg(off));
    mul->addOperand(Operand::reg(idx));
    mul->addOperand(Operand::imm(vt.stride));
    append(loads, root, mul);
    Instruction* add = f_->createInstruction(Opcode::Add);
    add->addMod(typeMod(ScalarType::S64));
    add->addOperand(Operand::reg(addr));
    add->addOperand(Operand::reg(base));
    add->addOperand(Operand::reg(off));
    append(loads, root, add);
    for (const Column& c : vt.columns) {
      Instruction* ld = f_->createInstruction(Opcode::Ld);
      ld->addMod(spaceMod(space));
      if (space == StateSpace::Global) ld->addMod(Mod::Nc);
      ld->addMod(typeMod(c.bytes == 8 ? ScalarType::B64 : c.bytes == 4 ? ScalarType::B32 : ScalarType::B16));
      ld->addOperand(Operand::reg(c.reg));
      Operand a;
      a.kind = OperandKind::Address;
      a.aux = static_cast<uint16_t>(AddressBase::Reg);
      a.id = addr;
      a.value = c.offset;
      ld->addOperand(a);
      append(loads, root, ld);
    }
    Instruction* toJoin = f_->createInstruction(Opcode::Bra);
    toJoin->addOperand(Operand::label(vt.join->label()));
    append(loads, root, toJoin);
    ctx_->count("value-tables");
    ctx_->remark(rootBlock, "value-table",
                 where + ", density " + std::to_string(density).substr(0, 4) + ": " + std::to_string(vt.columns.size()) +
                     " registers, " + std::to_string(vt.stride * vt.rows.size()) + " bytes in " +
                     (vt.divergent ? ".global (divergent selector)" : ".const (uniform selector)"),
                 {{"line", double(root.bra->loc().line)}, {"span", double(span)}, {"registers", double(vt.columns.size())}});
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
  std::string lowering_ = "auto";
  int64_t bstGain_ = 2, predicateLimit_ = 32;
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
