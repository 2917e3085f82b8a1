// mask-regions: whole single-entry, single-exit regions of nested divergent if/else become
// straight-line code under predicates that play the role of a SIMD mask stack (seed 004;
// docs/passes/mask-regions.md).
//
// A region starts at a block E that ends in a divergent `@[!]%c bra` and ends at E's immediate
// post-dominator X. Every block between them (reached from E before X) must be dominated by
// E, the blocks must form no cycle, and each must end in a plain jump, a fall-through or a
// conditional `bra` (no ret, exit, trap, brx.idx, call, barrier or warp collective inside).
//
// Each block B of the region gets a mask: the lanes that run B in the branching program. E's
// mask is every lane that entered. An edge P -> S carries mask(P) and, when P branches, the
// branch's condition or its negation (`and.pred %e, %mP, [!]%c`, computed at the end of P, where
// %c holds the value the branch read). A block's mask is the union of its incoming edges
// (`or.pred`), with one shortcut that makes structured code cheap: an incoming edge from P may
// be replaced by the mask of the highest dominator D of P (within the region) that B
// post-dominates, because every lane that passes D reaches B and every lane on the edge passed
// D. So the join of an if/else has the mask of its header and needs no instruction, and a
// SESE side's exit never reads a mask computed inside the side. Instructions take their
// block's mask as guard (an already-guarded `@%q X` gets `and.pred %t, %m, %q` first, shared
// by the next instructions with the same guard while neither is written); a guarded
// instruction whose guard is false does nothing, so the registers a block writes keep the
// other lanes' values: that is the blend. The blocks are laid out in a topological order that
// keeps each side's blocks together, E's instructions first, and the last block falls into X.
//
// Skipping empty sides (BOSCC): a side of at least boscc-min instructions (and every side of a
// nested branch the uniformity analysis proves warp-uniform) is preceded by
// `vote.sync.any.pred %a, %mS, %am; @!%a bra.uni SKIP`, where %am is `activemask` taken at the
// region's entry: a warp whose lanes all have an empty mask jumps over the side with a uniform
// branch. A side can be skipped when its blocks are contiguous, dominated by its first block,
// and leave only to the side's post-dominator; the shortcut above guarantees that nothing
// after the side reads a mask computed inside it.
//
// Refused: regions with barriers, warp collectives, calls, exits or loops inside, branch
// tables or debug sections naming a label inside, warp-uniform entry branches (a warp runs one
// side), and regions beyond the knobs' limits. The expected instructions of both forms decide,
// from the profile's counts with --profile-use and otherwise with every branch that may diverge
// assumed to split in divergence-prior of its executions; a region the model keeps keeps its
// inner branches (keep-inner).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/passes/PtxasModel.h"

#include "IfRegion.h"
#include "ThreadIndexFacts.h"
#include "MaskLoops.h"

namespace ptxopt {

namespace {

// A mask: an entry of the plan's value table (a fresh register or an existing predicate),
// possibly negated; id < 0 is every lane that entered the region.
struct MRef {
  int id = -1;
  bool neg = false;
  bool all() const { return id < 0; }
  bool operator==(const MRef& o) const { return id == o.id && neg == o.neg; }
};

struct Value {
  RegId existing = kNoReg;  // an existing register, read as it is
  ScalarType type = ScalarType::Pred;
  RegId fresh = kNoReg;     // allocated when the plan is carried out
};

// One step of the straight-line code that replaces the region.
struct Step {
  enum class Kind : uint8_t { Orig, And, Or, Mov, Activemask, Vote, SkipBranch, Label } kind = Kind::Orig;
  Instruction* inst = nullptr;  // Orig: the instruction; others: where the location comes from
  MRef guard;                   // Orig: the new guard (all: unchanged); SkipBranch: the vote result
  int dst = -1;                 // And, Or, Mov, Activemask, Vote: the value written
  MRef a, b;                    // operands (Vote: a is the mask, b.id the member mask or -1)
  int label = -1;               // SkipBranch, Label

  static Step op(Kind k, Instruction* at, int dst, MRef a = {}, MRef b = {}) {
    Step s;
    s.kind = k;
    s.inst = at;
    s.dst = dst;
    s.a = a;
    s.b = b;
    return s;
  }
  static Step orig(Instruction* i, MRef guard) {
    Step s;
    s.inst = i;
    s.guard = guard;
    return s;
  }
  static Step jump(Instruction* at, MRef guard, int label) {
    Step s;
    s.kind = Kind::SkipBranch;
    s.inst = at;
    s.guard = guard;
    s.label = label;
    return s;
  }
  static Step place(Instruction* at, int label) {
    Step s;
    s.kind = Kind::Label;
    s.inst = at;
    s.label = label;
    return s;
  }
};

struct Plan {
  std::vector<uint32_t> order;  // the region's blocks (RPO numbers) in their new order, E first
  std::vector<Value> values;
  std::vector<Step> steps;
  int labels = 0;
  unsigned size = 0;      // instructions of the region but E's and the jumps
  unsigned depth = 0;     // nesting depth of conditional branches
  unsigned branches = 0;  // conditional branches removed (E's included)
  unsigned extra = 0;     // instructions added: mask arithmetic, votes, skip branches
  unsigned skips = 0;
  unsigned uniformSkips = 0;
  unsigned liveMasks = 0;  // most fresh mask registers live at once
  unsigned conjunctions = 0;
  unsigned speculated = 0;  // instructions left unguarded (private temporaries)
  unsigned ptxasKept = 0;   // conditional branches ptxas would keep (ptxasKeptBranches)
  unsigned ptxasKeptLoads = 0;  // the same where it also keeps the branch around a loadBlock
  unsigned loadBlocks = 0;      // blocks after E with PtxasModel::kLoadsBranchedAround loads or more
  uint32_t exit = 0;        // X, the immediate post-dominator of E (RPO number)
  unsigned mergedDefs = 0;  // definitions in the region of registers live after it
  bool tree = false;        // every block after E has one predecessor: no two paths meet before X
};

class MaskRegions : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    maxSize_ = k.getInt("max-size");
    maxDepth_ = k.getInt("max-depth");
    maxLiveMasks_ = k.getInt("max-live-masks");
    maxExtra_ = k.getInt("max-extra");
    bosccMin_ = k.getInt("boscc-min");
    treeDivergenceCost_ = k.getFloat("tree-divergence-cost");
    prior_ = k.getFloat("divergence-prior");
    keepInner_ = k.getBool("keep-inner");
    ptxasTriangleCheck_ = k.getBool("ptxas-triangle-check");
    extraLatencyCheck_ = k.getBool("extra-latency-check");
    loadBranchCheck_ = k.getBool("load-branch-check");
    thresholdCheck_ = k.getBool("threshold-check");
    loops_ = k.getBool("loops");
    speculate_ = k.getBool("speculate");
    syncVotes_ = canUseSyncVotes(*f.parent());
    refused_.clear();
    skipBranches_.clear();

    bool changed = false;
    // Outer regions first. One walk converts every region that does not overlap a region it
    // already converted, on the analyses computed before the walk: a conversion replaces a
    // single-entry, single-exit piece by straight-line code with the same per-lane effects, so
    // the facts outside it (dominance, post-dominance, uniformity, what each lane reads) stay
    // true. The next walk sees the new CFG; each conversion removes a conditional branch.
    for (bool again = true; again;) {
      again = false;
      const CfgInfo& cfg = am.get<CfgAnalysis>();
      const DominatorTree& dom = am.get<DominatorAnalysis>();
      const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();
      const UniformityInfo& uni = am.get<UniformityAnalysis>();
      const Liveness& lv = am.get<LivenessAnalysis>();
      defSites_.clear();
      for (uint32_t b = 0; b < cfg.size(); ++b)
        for (const Instruction* i : cfg.rpo[b]->insts())
          i->forEachDefReg([&](RegId r) {
            auto& v = defSites_[r];
            if (v.empty() || v.back() != b) v.push_back(b);
          });
      threadIndex_.emplace(cfg.rpo, uni.everDivergent());
      uni_ = &uni;
      pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
      touched_.clear();
      for (uint32_t e = 0; e < cfg.size(); ++e) {
        BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[e]);
        if (touched_.count(E)) continue;
        Instruction* br = conditionalBranch(*E);
        if (!br || refused_.count(br) || skipBranches_.count(br)) continue;
        std::optional<Plan> plan = analyze(e, cfg, dom, pdt, uni, lv);
        if (!plan) continue;
        if (!decide(*plan, cfg)) continue;
        for (uint32_t b : plan->order) touched_.insert(cfg.rpo[b]);
        carryOut(*plan, cfg);
        changed = again = true;
      }
      if (again) {
        buildCfg(f);
        am.invalidate(PreservedAnalyses::none());
      }
    }
    if (loops_ && syncVotes_ >= 0 && maskDivergentLoops(f, am, ctx, syncVotes_ == 1, maxSize_)) changed = true;
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  // How sides are skipped: 1 with activemask and vote.sync (PTX 6.2), 0 with the old
  // `vote.any.pred` (older PTX, and only below sm_70, which no longer accepts it), -1 not at all.
  static int canUseSyncVotes(const Module& m) {
    if (m.versionMajor > 6 || (m.versionMajor == 6 && m.versionMinor >= 2)) return 1;
    for (uint32_t t : m.targets) {
      std::string_view s = m.str(t);
      if (s.substr(0, 3) != "sm_") continue;
      int sm = 0;
      for (char c : s.substr(3)) {
        if (c < '0' || c > '9') break;
        sm = sm * 10 + (c - '0');
      }
      return sm < 70 ? 0 : -1;
    }
    return -1;
  }

  void refuse(const Instruction* br, const BasicBlock* E, const std::string& reason, const std::string& text,
              std::vector<std::pair<std::string, double>> figures = {}) {
    if (!refused_.insert(br).second) return;
    ctx_->count("refused-" + reason);
    ctx_->remark(E, "keep", "region at line " + std::to_string(br->loc().line) + ": " + text, std::move(figures));
  }

  // Every block reachable from `from`'s successors (from `from` itself when `self`) on paths that
  // do not enter `stop`, each once, in the order a stack walk meets them. `stop` is never in the
  // result; `from` is in it only when `self` or when a path leads back to it (a loop). Nothing
  // else is checked: a path that ends at a block without successors simply ends there.
  static std::vector<uint32_t> reach(const CfgInfo& cfg, uint32_t from, uint32_t stop, bool self) {
    std::vector<uint32_t> out, stack;
    std::vector<uint8_t> seen(cfg.size(), 0);
    auto push = [&](uint32_t s) {
      if (s == stop || seen[s]) return;
      seen[s] = 1;
      stack.push_back(s);
    };
    if (self) push(from);
    else
      for (uint32_t s : cfg.succ[from]) push(s);
    while (!stack.empty()) {
      uint32_t b = stack.back();
      stack.pop_back();
      out.push_back(b);
      for (uint32_t s : cfg.succ[b]) push(s);
    }
    return out;
  }

  std::optional<Plan> analyze(uint32_t e, const CfgInfo& cfg, const DominatorTree& dom, const PostDominatorTree& pdt,
                              const UniformityInfo& uni, const Liveness& lv) {
    BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[e]);
    Instruction* br = conditionalBranch(*E);
    if (!costMayDiverge(uni, E)) {
      refuse(br, E, "uniform",
             uni.isDivergentBranch(E)
                 ? "the branch is a bra.uni: the PTX asserts that no warp splits on it (a warp runs one side only)"
                 : "the branch is warp-uniform (a warp runs one side only)");
      return std::nullopt;
    }
    uint32_t x = pdt.ipdom(e);
    if (x == pdt.virtualExit || x >= cfg.size()) {
      refuse(br, E, "no-exit", "the sides do not meet again (an exit or a loop that never leaves)");
      return std::nullopt;
    }
    // An early exit (`if (i >= n) return;` around the whole body): ptxas ends those lanes with a
    // guarded EXIT; predicating the body under the bound would only add guards.
    const BasicBlock* xb = cfg.rpo[x];
    if (std::find(cfg.succ[e].begin(), cfg.succ[e].end(), x) != cfg.succ[e].end()) {
      const Instruction* first = nullptr;
      for (const Instruction* i : xb->insts())
        if (!i->info().isPseudo()) {
          first = i;
          break;
        }
      if (first && !first->hasGuard() && (first->is(Opcode::Ret) || first->is(Opcode::Exit))) {
        refuse(br, E, "early-exit", "an early exit (the lanes that skip the body end at " + xb->name() + ")");
        return std::nullopt;
      }
    }
    std::vector<uint32_t> inner = reach(cfg, e, x, false);
    for (uint32_t b : inner)
      if (touched_.count(cfg.rpo[b])) return std::nullopt;  // converted in this walk: the next one sees it
    std::vector<uint8_t> in(cfg.size(), 0);
    in[e] = 1;
    for (uint32_t b : inner) {
      if (b == e) {
        refuse(br, E, "loop", "the region is a loop");
        return std::nullopt;
      }
      in[b] = 1;
    }
    Plan p;
    // Shape: single entry, no cycle, nothing but branches and fall-through at the ends.
    for (uint32_t b : inner) {
      const BasicBlock* B = cfg.rpo[b];
      if (!dom.tree.dominates(e, b)) {
        refuse(br, E, "side-entry", B->name() + " is entered from outside the region");
        return std::nullopt;
      }
      // (Unreachable blocks count: a branch of one would name a block that left the layout.)
      for (const BasicBlock* q : B->preds())
        if (cfg.index(q) < 0 || !in[uint32_t(cfg.index(q))]) {
          refuse(br, E, "side-entry", B->name() + " is entered from outside the region");
          return std::nullopt;
        }
      for (uint32_t s : cfg.succ[b])
        if (in[s] && s <= b) {
          refuse(br, E, "loop", "a loop inside the region (" + cfg.rpo[s]->name() + ")");
          return std::nullopt;
        }
      if (B->hasLabel() && pinned_.count(f_->labelName(B->label()))) {
        refuse(br, E, "pinned", "a debug section or a branch table names " + B->name());
        return std::nullopt;
      }
      const Instruction* t = B->terminator();
      bool conditional = cfg.succ[b].size() == 2;
      if (conditional && conditionalBranch(*const_cast<BasicBlock*>(B)) == nullptr) {
        refuse(br, E, "unpredicable", "a block with two ways that is not a plain conditional branch (" + B->name() + ")");
        return std::nullopt;
      }
      if (cfg.succ[b].size() > 2 || cfg.succ[b].empty()) {
        refuse(br, E, "unpredicable", "a block without one or two successors (" + B->name() + ")");
        return std::nullopt;
      }
      for (const Instruction* i : B->insts()) {
        if (i == t && t->is(Opcode::Bra)) continue;
        if (std::string why = whyNotPredicable(*i); !why.empty()) {
          refuse(br, E, "unpredicable", "not predicable: " + why + " (line " + std::to_string(i->loc().line) + ")");
          return std::nullopt;
        }
        ++p.size;
      }
      if (conditional) ++p.branches;
    }
    ++p.branches;
    if (inner.empty()) return std::nullopt;

    // The order: a topological sort that takes the most recently readied block first, so the
    // blocks of a side stay together; among blocks readied together, the earlier in the layout.
    std::vector<size_t> layout(cfg.size(), 0);  // by RPO number: the place in the layout
    for (size_t k = 0; k < f_->blocks().size(); ++k) {
      int32_t r = cfg.index(f_->blocks()[k]);
      if (r >= 0) layout[uint32_t(r)] = k;
    }
    std::vector<uint32_t> indeg(cfg.size(), 0);
    for (uint32_t b : inner)
      for (uint32_t q : cfg.pred[b])
        if (in[q]) ++indeg[b];
    std::vector<uint32_t> ready{e};
    while (!ready.empty()) {
      uint32_t b = ready.back();
      ready.pop_back();
      p.order.push_back(b);
      std::vector<uint32_t> now;
      for (uint32_t s : cfg.succ[b])
        if (in[s] && --indeg[s] == 0) now.push_back(s);
      std::sort(now.begin(), now.end(), [&](uint32_t a, uint32_t c) { return layout[a] > layout[c]; });
      ready.insert(ready.end(), now.begin(), now.end());
    }
    if (p.order.size() != inner.size() + 1) return std::nullopt;  // (a cycle; refused above)
    std::vector<int> pos(cfg.size(), -1);
    for (size_t k = 0; k < p.order.size(); ++k) pos[p.order[k]] = int(k);

    // Nesting depth: how many conditional blocks' inner regions hold a block, at most, plus one.
    std::vector<unsigned> nest(cfg.size(), 0);
    for (uint32_t d : p.order)
      if (cfg.succ[d].size() == 2) {
        uint32_t j = pdt.ipdom(d);
        for (uint32_t b : reach(cfg, d, j, false))
          if (in[b]) p.depth = std::max(p.depth, ++nest[b]);
      }
    p.depth = std::max(p.depth, 1u);

    // Registers written inside the region (E's own instructions excepted).
    std::unordered_set<RegId> written;
    for (uint32_t b : inner)
      for (const Instruction* i : cfg.rpo[b]->insts()) i->forEachDefReg([&](RegId r) { written.insert(r); });

    // The masks.
    std::vector<MRef> mask(cfg.size());
    auto highest = [&](uint32_t pred, uint32_t b) -> std::optional<uint32_t> {
      std::optional<uint32_t> best;
      for (int32_t d = int32_t(pred);; d = dom.tree.idom(uint32_t(d))) {
        if (d < 0 || !in[uint32_t(d)]) break;
        if (pdt.tree.dominates(b, uint32_t(d))) best = uint32_t(d);
        if (uint32_t(d) == e) break;
      }
      return best;
    };
    // Contributions each block's mask takes: an ancestor's mask or an edge (pred, successor).
    struct Contribution {
      bool edge = false;
      uint32_t from = 0;  // the ancestor, or the edge's source
    };
    std::vector<std::vector<Contribution>> contrib(cfg.size());
    std::map<std::pair<uint32_t, uint32_t>, MRef> edgeMask;  // wanted edges, filled at the source
    for (uint32_t b : inner) {
      for (uint32_t q : cfg.pred[b]) {
        Contribution c;
        if (std::optional<uint32_t> d = highest(q, b)) c.from = *d;
        else c = {true, q};
        bool dup = std::any_of(contrib[b].begin(), contrib[b].end(),
                               [&](const Contribution& o) { return o.edge == c.edge && o.from == c.from; });
        if (!dup) contrib[b].push_back(c);
        if (c.edge) edgeMask[{q, b}] = MRef{};
      }
    }

    // Sides that get a skip: the successor S of a conditional block whose blocks up to S's
    // post-dominator are contiguous from S, dominated by S, and leave only to it.
    struct Skip {
      int end = 0;  // position after the side
      bool uniform = false;
    };
    std::map<int, Skip> skipAt;  // by the side's first position
    if (syncVotes_ >= 0)
      for (uint32_t d : p.order) {
        if (cfg.succ[d].size() != 2) continue;
        bool uniform = d != e && !uni.isDivergentBranch(cfg.rpo[d]);
        for (uint32_t s : cfg.succ[d]) {
          if (!in[s] || s == pdt.ipdom(d) || skipAt.count(pos[s])) continue;
          uint32_t xs = pdt.ipdom(s);
          std::vector<uint32_t> side = reach(cfg, s, xs, true);
          bool ok = !side.empty();
          unsigned insts = 0;
          int last = pos[s];
          for (uint32_t b : side) {
            if (!in[b] || !dom.tree.dominates(s, b)) ok = false;
            if (!ok) break;
            last = std::max(last, pos[b]);
            for (uint32_t t : cfg.succ[b])
              if (t != xs && (!in[t] || !dom.tree.dominates(s, t))) ok = false;
            for (const Instruction* i : cfg.rpo[b]->insts())
              if (!(i == cfg.rpo[b]->terminator() && i->is(Opcode::Bra))) ++insts;
          }
          if (!ok || last - pos[s] + 1 != int(side.size())) continue;
          if (!uniform && (bosccMin_ <= 0 || insts < unsigned(bosccMin_))) continue;
          skipAt[pos[s]] = Skip{last + 1, uniform};
        }
      }

    // An instruction may run unguarded, for every lane, when it cannot fault or have an effect
    // and what it writes is a private temporary of its block B: every definition of the
    // register is in a block B dominates, and the register is live neither into E nor into X.
    // Then no lane outside B's mask ever reads it: such a lane does not pass B, so in the
    // branching program it would reach a read of the register only through a definition, and
    // there is none on its path (the seed's unmasked intermediate results).
    const BasicBlock* X = cfg.rpo[x];
    auto privateTemp = [&](const Instruction* i, uint32_t b) {
      if (!speculate_ || i->hasGuard() || !i->isSpeculatable()) return false;
      bool ok = true;
      i->forEachDefReg([&](RegId r) {
        if (!ok) return;
        if (lv.liveIn[E->id()].test(r) || lv.liveIn[X->id()].test(r)) ok = false;
        auto d = defSites_.find(r);
        if (d == defSites_.end()) return;
        for (uint32_t site : d->second)
          if (!in[site] || !dom.tree.dominates(b, site)) ok = false;
      });
      return ok;
    };

    // The first write in the line of a register dead into E may also run for every lane
    // (firstWriteMayRunUnguarded). The region is acyclic, so the line runs each instruction at
    // most once (regions refuse loops; MaskLoops runs after the walks and guards a loop body,
    // these instructions included, with the loop's mask).
    std::unordered_set<RegId> lineDefs;  // registers some earlier instruction of the line writes
    auto firstWrite = [&](const Instruction* i) { return speculate_ && firstWriteMayRunUnguarded(*i, lineDefs, lv.liveIn[E->id()]); };

    // The steps.
    auto newValue = [&](ScalarType t = ScalarType::Pred) {
      p.values.push_back(Value{kNoReg, t, kNoReg});
      return int(p.values.size() - 1);
    };
    auto existing = [&](RegId r) {
      p.values.push_back(Value{r, ScalarType::Pred, kNoReg});
      return int(p.values.size() - 1);
    };
    auto step = [&](Step s) {
      if (s.kind != Step::Kind::Orig && s.kind != Step::Kind::Label) ++p.extra;
      p.steps.push_back(s);
    };
    std::map<int, int> labelAt;  // position -> plan label
    int memberMask = -1;
    if (!skipAt.empty() && syncVotes_ == 1) {
      memberMask = newValue(ScalarType::B32);
    }
    for (size_t k = 0; k < p.order.size(); ++k) {
      if (auto l = labelAt.find(int(k)); l != labelAt.end()) step(Step::place(br, l->second));
      uint32_t b = p.order[k];
      BasicBlock* B = const_cast<BasicBlock*>(cfg.rpo[b]);
      if (b != e) {
        // The block's mask from its contributions.
        std::vector<MRef> parts;
        for (const Contribution& c : contrib[b]) {
          MRef m = c.edge ? edgeMask.at({c.from, b}) : mask[c.from];
          if (std::find(parts.begin(), parts.end(), m) == parts.end()) parts.push_back(m);
        }
        if (std::any_of(parts.begin(), parts.end(), [](const MRef& m) { return m.all(); })) {
          mask[b] = MRef{};
        } else {
          MRef acc = parts[0];
          for (size_t j = 1; j < parts.size(); ++j) {
            int v = newValue();
            step(Step::op(Step::Kind::Or, B->insts().empty() ? br : B->insts().front(), v, acc, parts[j]));
            acc = MRef{v, false};
          }
          mask[b] = acc;
        }
      } else if (memberMask >= 0) {
        step(Step::op(Step::Kind::Activemask, br, memberMask));
      }
      if (auto s = skipAt.find(int(k)); s != skipAt.end()) {
        int vote = newValue();
        step(Step::op(Step::Kind::Vote, br, vote, mask[b], MRef{memberMask, false}));
        int label;
        if (auto l = labelAt.find(s->second.end); l != labelAt.end()) label = l->second;
        else label = labelAt[s->second.end] = p.labels++;
        step(Step::jump(br, MRef{vote, true}, label));
        ++p.skips;
        if (s->second.uniform) ++p.uniformSkips;
      }
      // The block's instructions under its mask.
      Instruction* t = B->terminator();
      bool conditional = cfg.succ[b].size() == 2;
      std::vector<std::pair<std::pair<RegId, bool>, int>> cached;  // (guard, negated) -> conjunction
      for (Instruction* i : B->insts()) {
        if (i == t && t->is(Opcode::Bra)) continue;
        Step s = Step::orig(i, MRef{});
        if (!mask[b].all() && (privateTemp(i, b) || firstWrite(i))) {
          ++p.speculated;
        } else if (!mask[b].all()) {
          if (i->hasGuard()) {
            std::pair<RegId, bool> g{i->guard(), i->guardNegated()};
            auto it = std::find_if(cached.begin(), cached.end(), [&](auto& c) { return c.first == g; });
            int v;
            if (it != cached.end()) {
              v = it->second;
            } else {
              v = newValue();
              step(Step::op(Step::Kind::And, i, v, mask[b], MRef{existing(g.first), g.second}));
              cached.emplace_back(g, v);
              ++p.conjunctions;
            }
            s.guard = MRef{v, false};
          } else {
            s.guard = mask[b];
          }
        }
        i->forEachDefReg([&](RegId d) {
          lineDefs.insert(d);
          cached.erase(std::remove_if(cached.begin(), cached.end(), [&](auto& c) { return c.first.first == d; }),
                       cached.end());
        });
        step(s);
      }
      // The masks of the edges that later blocks want.
      for (uint32_t s : cfg.succ[b]) {
        auto em = edgeMask.find({b, s});
        if (em == edgeMask.end()) continue;
        if (!conditional) {
          em->second = mask[b];
          continue;
        }
        bool taken = B->successor(EdgeKind::Taken) == cfg.rpo[s];
        bool neg = t->guardNegated() != !taken;  // the edge's condition is guard ^ neg
        RegId c = t->guard();
        if (mask[b].all()) {
          int v;
          if (written.count(c)) {
            // The region writes %c later: keep the value the branch read.
            v = newValue();
            step(Step::op(Step::Kind::Mov, t, v, MRef{existing(c), false}));
          } else {
            v = existing(c);
          }
          em->second = MRef{v, neg};
          // The other edge of the same branch shares the copy.
          for (uint32_t s2 : cfg.succ[b]) {
            auto o = edgeMask.find({b, s2});
            if (s2 != s && o != edgeMask.end()) o->second = MRef{v, !neg};
          }
          break;
        }
        int v = newValue();
        step(Step::op(Step::Kind::And, t, v, mask[b], MRef{existing(c), neg}));
        em->second = MRef{v, false};
      }
    }
    if (auto l = labelAt.find(int(p.order.size())); l != labelAt.end())
      step(Step::place(br, l->second));

    // The most fresh masks live at once.
    std::vector<int> lastUse(p.values.size(), -1), def(p.values.size(), -1);
    for (size_t k = 0; k < p.steps.size(); ++k) {
      const Step& s = p.steps[k];
      for (const MRef* m : {&s.guard, &s.a, &s.b})
        if (!m->all()) lastUse[m->id] = int(k);
      if (s.dst >= 0) def[s.dst] = int(k);
    }
    std::vector<int> delta(p.steps.size() + 1, 0);
    for (size_t v = 0; v < p.values.size(); ++v)
      if (p.values[v].existing == kNoReg && p.values[v].type == ScalarType::Pred && def[v] >= 0 && lastUse[v] > def[v]) {
        ++delta[def[v]];
        --delta[lastUse[v]];
      }
    int live = 0;
    for (int d : delta) {
      live += d;
      p.liveMasks = std::max(p.liveMasks, unsigned(std::max(live, 0)));
    }
    p.ptxasKept = ptxasKeptBranches(p, cfg, false);
    p.ptxasKeptLoads = ptxasKeptBranches(p, cfg, true);
    for (uint32_t b : p.order)
      if (b != e && loadsIn(*cfg.rpo[b]) >= PtxasModel::kLoadsBranchedAround) ++p.loadBlocks;
    p.exit = x;
    p.tree = std::all_of(p.order.begin(), p.order.end(), [&](uint32_t b) { return b == e || cfg.pred[b].size() == 1; });
    for (uint32_t b : p.order) {
      if (b == e) continue;
      std::unordered_set<RegId> defs;
      for (const Instruction* i : cfg.rpo[b]->insts())
        i->forEachDefReg([&](RegId r) {
          if (lv.liveIn[xb->id()].test(r)) defs.insert(r);
        });
      p.mergedDefs += unsigned(defs.size());
    }
    return p;
  }

  // Do both ways of E's branch (the blocks only one of them reaches before X) hold long-latency
  // arithmetic? Predicated, the region runs both latency chains for every lane.
  bool longLatencyBothWays(uint32_t e, uint32_t x, const CfgInfo& cfg) const {
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

  static unsigned loadsIn(const BasicBlock& b) {
    unsigned n = 0;
    for (const Instruction* i : b.insts())
      if (PtxasModel::isLoad(*i)) ++n;
    return n;
  }

  // The instructions of a block that both forms issue: not its closing branch (a conditional
  // one is costed on its own, a jump disappears) and no pseudo statement.
  static unsigned issued(const BasicBlock& b) {
    unsigned n = 0;
    for (const Instruction* i : b.insts())
      if (!(i == b.terminator() && i->is(Opcode::Bra)) && !i->info().isPseudo()) ++n;
    return n;
  }

  // How many of the region's conditional branches ptxas would keep. ptxas if-converts a
  // triangle or diamond whose sides are single blocks of at most ptxas.side-limit instructions
  // (measured: docs/passes/select.md). This replays that on the region's blocks, repeatedly, so
  // that a converted inner level makes its enclosing one a triangle or diamond too: a branch it
  // collapses costs the branching form nothing that the straight-line form saves. ptxas itself
  // does not repeat; it folds nested conditions with one destination (`a && b`), which the
  // repeat stands in for, and otherwise keeps the outer branch: the count can be lower than
  // what ptxas keeps in nested regions (probes on the pass page). With `withLoads`, a side of
  // PtxasModel::kLoadsBranchedAround loads or more is not collapsed either.
  unsigned ptxasKeptBranches(const Plan& p, const CfgInfo& cfg, bool withLoads) const {
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
          int64_t(it->second.size) > ctx_->ptxas().sideLimit() ||
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

  std::vector<std::pair<std::string, double>> figures(const Plan& p, const Instruction* br) const {
    return {{"line", double(br->loc().line)},      {"size", double(p.size)},
            {"depth", double(p.depth)},            {"branches", double(p.branches)},
            {"extra", double(p.extra)},            {"skips", double(p.skips)},
            {"live-masks", double(p.liveMasks)},   {"ptxas-kept", double(p.ptxasKept)},
            {"merged-defs", double(p.mergedDefs)}, {"ptxas-kept-with-loads", double(p.ptxasKeptLoads)},
            {"load-blocks", double(p.loadBlocks)},   {"tree", p.tree ? 1.0 : 0.0}};
  }

  static std::string planText(const Plan& p) {
    return std::to_string(p.size) + " instructions, depth " + std::to_string(p.depth) + ", " +
           std::to_string(p.branches) + " conditional branches, " + std::to_string(p.extra) + " added (" +
           std::to_string(p.skips) + " skips), " + std::to_string(p.liveMasks) + " masks live at most";
  }

  // The expected instructions per warp execution of E of the straight-line and the branching
  // form. With counts for E's branch (`c`) every branch of the region takes its own counts
  // where the profile has them; without, each branch the uniformity analysis says may diverge
  // splits in `divergence-prior` of the executions that reach it and goes either way evenly in
  // the others, and a warp-uniform one never splits. Each block runs in the warp executions
  // that reach it (a join after a divergent branch once), each conditional branch costs one
  // more and divergence-cost more when it splits (tree-divergence-cost in a tree-shaped region
  // with a profile). The straight-line form runs everything, the added instructions included,
  // on every entry.
  std::pair<double, double> expectedCosts(const Plan& p, const CfgInfo& cfg, const BranchCounts* c) const {
    std::vector<double> runs(cfg.size(), 0);
    double n = c ? double(c->executions()) : 1.0;
    runs[p.order[0]] = n;
    // How the executions reaching `q` go (PtxasModel.h).
    auto odds = [&](uint32_t q) {
      const BranchCounts* qc = c ? usableCounts(*ctx_, *cfg.rpo[q]->terminator()) : nullptr;
      if (qc && qc->executions()) return BranchOdds::fromCounts(*qc);
      if (c) return BranchOdds{0.5, 0.5, 0.5};
      return BranchOdds::fromPrior(costMayDiverge(*uni_, cfg.rpo[q]), prior_);
    };
    // With a profile, a split in a tree-shaped region costs tree-divergence-cost: its paths
    // run to X without meeting, and ptxas reconverges them there once, at E's BSSY/BSYNC.
    double splitCost = c && p.tree ? treeDivergenceCost_ : ctx_->ptxas().divergenceCost();
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

  bool decide(const Plan& p, const CfgInfo& cfg) {
    BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[p.order[0]]);
    Instruction* br = conditionalBranch(*E);
    std::string text = planText(p);
    auto no = [&](const char* reason, const std::string& why) {
      refuse(br, E, reason, text + ": " + why, figures(p, br));
      return false;
    };
    if (int64_t(p.size) > maxSize_) return no("size", "larger than max-size " + std::to_string(maxSize_));
    if (int64_t(p.depth) > maxDepth_) return no("depth", "deeper than max-depth " + std::to_string(maxDepth_));
    if (int64_t(p.liveMasks) > maxLiveMasks_)
      return no("masks", "more masks live than max-live-masks " + std::to_string(maxLiveMasks_));
    if (int64_t(p.extra) > maxExtra_) return no("extra", "more added instructions than max-extra " + std::to_string(maxExtra_));
    std::string why = "within the limits";
    const BranchCounts* c = usableCounts(*ctx_, *br);
    if (!c && thresholdCheck_ && p.branches == 1 && threadIndex_->thresholdBranch(*br))
      return no("threshold", "the branch compares the thread index with a warp-uniform bound: at most one warp of a CTA "
                             "splits on it, the others go one way (threshold-check)");
    if (!c && thresholdCheck_ && threadIndex_->highTidBitsBranch(*br))
      return no("threshold", "the branch tests only bits 5 and up of the thread index, which the lanes of a warp share: "
                             "no warp splits on it (threshold-check)");
    if (!c && extraLatencyCheck_ && longLatencyBothWays(p.order[0], p.exit, cfg))
      return no("extra-latency", "both ways hold long-latency arithmetic (extra-latency-check)");
    // Converted, the region still has a branch around each block of loads, and ptxas would have
    // predicated everything else itself: nothing to gain, the masks to pay (bitonic sort's
    // compare-exchange steps). Applies with a profile too: it is about ptxas, not the data.
    if (loadBranchCheck_ && p.ptxasKept == 0 && p.ptxasKeptLoads > 0 && p.loadBlocks >= p.ptxasKeptLoads)
      return no("load-branch", "ptxas would predicate every branch but those around blocks with two or more loads, "
                               "and branches around such a block again once it is guarded (load-branch-check)");
    // One branch ptxas would predicate itself: converted, it writes `@%m add %r, ...` where
    // ptxas's own if-conversion writes `@P IADD3`, and for such a guarded definition of a value
    // live after the region ptxas emits the instruction unguarded plus a SEL of the old value.
    if (ptxasTriangleCheck_ && p.branches == 1 && p.ptxasKept == 0 && p.mergedDefs > 0)
      return no("ptxas-triangle", "ptxas predicates the branch's sides itself, and a guarded definition of a value live "
                                  "after the region costs it a SEL (ptxas-triangle-check)");
    if (c || prior_ >= 0) {
      auto [linear, branching] = expectedCosts(p, cfg, c);
      char buf[240];
      if (c)
        std::snprintf(buf, sizeof buf, "profile: %llu executions; expected %.2f instructions straight-line against %.2f branching",
                      static_cast<unsigned long long>(c->executions()), linear, branching);
      else
        std::snprintf(buf, sizeof buf, "no profile: with divergence-prior %.2f, expected %.2f instructions straight-line against %.2f branching",
                      std::min(prior_, 1.0), linear, branching);
      why = buf;
      const char* tag = c ? "profile" : "prior";
      if (!convertedWins(linear, branching)) {
        ctx_->count(std::string(tag) + "-refused");
        bool r = no(tag, why);
        if (keepInner_)
          for (uint32_t b : p.order)
            if (b != p.order[0])
              if (const Instruction* ib = conditionalBranch(*const_cast<BasicBlock*>(cfg.rpo[b]))) refused_.insert(ib);
        return r;
      }
      ctx_->count(std::string(tag) + "-accepted");
    }
    ctx_->count("converted");
    ctx_->count("converted-depth-" + std::to_string(std::min(p.depth, 4u)));
    if (p.skips) ctx_->count("skips", p.skips);
    if (p.uniformSkips) ctx_->count("uniform-skips", p.uniformSkips);
    if (p.speculated) ctx_->count("speculated-instructions", p.speculated);
    ctx_->remark(E, "convert", "region at line " + std::to_string(br->loc().line) + ": " + text + ": " + why,
                 figures(p, br));
    return true;
  }

  Instruction* make(Opcode op, ScalarType t, const Instruction& at) { return buildInstruction(*f_, op, t, {}, &at); }

  void carryOut(Plan& p, const CfgInfo& cfg) {
    BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[p.order[0]]);
    Instruction* br = conditionalBranch(*E);
    uint32_t xIdx = 0;
    {
      // X: the block every edge that leaves the region goes to.
      std::unordered_set<uint32_t> in(p.order.begin(), p.order.end());
      for (uint32_t b : p.order)
        for (uint32_t s : cfg.succ[b])
          if (!in.count(s)) xIdx = s;
    }
    BasicBlock* X = const_cast<BasicBlock*>(cfg.rpo[xIdx]);
    auto reg = [&](int v) -> RegId {
      Value& val = p.values[v];
      if (val.existing != kNoReg) return val.existing;
      if (val.fresh == kNoReg) val.fresh = f_->addRegister(val.type, val.type == ScalarType::Pred ? "%mask" : "%lanes");
      return val.fresh;
    };
    auto operand = [&](const MRef& m) {
      Operand o = Operand::reg(reg(m.id));
      if (m.neg) o.flags |= OperandFlag::Negated;
      return o;
    };
    std::vector<uint32_t> labelIds(p.labels, 0);
    std::vector<BasicBlock*> labelBlocks(p.labels, nullptr);
    for (int l = 0; l < p.labels; ++l) {
      labelBlocks[l] = f_->createBlock();
      labelIds[l] = f_->addLabel(labelBlocks[l], "$L__mask_skip");
    }

    std::vector<BasicBlock*> newBlocks{E};
    std::vector<Instruction*> body;  // the steps start with E's instructions (without its branch)
    BasicBlock* cur = E;
    auto flush = [&] {
      cur->insts().clear();
      for (Instruction* i : body) cur->append(i);
      body.clear();
    };
    for (const Step& s : p.steps) {
      const Instruction& at = *s.inst;
      switch (s.kind) {
        case Step::Kind::Orig:
          if (!s.guard.all()) s.inst->setGuard(reg(s.guard.id), s.guard.neg);
          body.push_back(s.inst);
          if (!s.guard.all()) ctx_->count("predicated-instructions");
          break;
        case Step::Kind::And:
        case Step::Kind::Or: {
          Instruction* i = make(s.kind == Step::Kind::And ? Opcode::And : Opcode::Or, ScalarType::Pred, at);
          i->addOperand(Operand::reg(reg(s.dst)));
          i->addOperand(operand(s.a));
          i->addOperand(operand(s.b));
          body.push_back(i);
          break;
        }
        case Step::Kind::Mov: {
          Instruction* i = make(Opcode::Mov, ScalarType::Pred, at);
          i->addOperand(Operand::reg(reg(s.dst)));
          i->addOperand(operand(s.a));
          body.push_back(i);
          break;
        }
        case Step::Kind::Activemask: {
          Instruction* i = make(Opcode::Activemask, ScalarType::B32, at);
          i->addOperand(Operand::reg(reg(s.dst)));
          body.push_back(i);
          break;
        }
        case Step::Kind::Vote: {
          body.push_back(buildVoteAny(*f_, reg(s.dst), operand(s.a), s.b.id >= 0 ? reg(s.b.id) : kNoReg, &at));
          break;
        }
        case Step::Kind::SkipBranch: {
          Instruction* i = f_->createInstruction(Opcode::Bra);
          i->addMod(Mod::Uni);
          i->addOperand(Operand::label(labelIds[s.label]));
          i->setGuard(reg(s.guard.id), s.guard.neg);
          skipBranches_.insert(i);
          i->setLoc(at.loc());
          i->setDebugLoc(at.debugLoc());
          body.push_back(i);
          flush();
          cur = f_->createBlock();  // the side, entered by falling through
          newBlocks.push_back(cur);
          break;
        }
        case Step::Kind::Label:
          flush();
          cur = labelBlocks[s.label];
          newBlocks.push_back(cur);
          break;
      }
    }
    // The region's blocks leave the layout; the new ones take E's place, and the last falls
    // into X or jumps to it.
    std::unordered_set<const BasicBlock*> gone;
    for (uint32_t b : p.order)
      if (b != p.order[0]) gone.insert(cfg.rpo[b]);
    auto& blocks = f_->blocks();
    blocks.erase(std::remove_if(blocks.begin(), blocks.end(), [&](BasicBlock* b) { return gone.count(b) != 0; }),
                 blocks.end());
    size_t at = std::find(blocks.begin(), blocks.end(), E) - blocks.begin();
    blocks.insert(blocks.begin() + at + 1, newBlocks.begin() + 1, newBlocks.end());
    size_t after = at + newBlocks.size();
    if (after >= blocks.size() || blocks[after] != X) {
      if (!X->hasLabel()) f_->addLabel(X, "$L__mask_join");
      Instruction* j = f_->createInstruction(Opcode::Bra);
      j->addMod(Mod::Uni);
      j->addOperand(Operand::label(X->label()));
      j->setLoc(br->loc());
      j->setDebugLoc(br->debugLoc());
      body.push_back(j);
    }
    flush();
    for (const BasicBlock* b : gone) const_cast<BasicBlock*>(b)->insts().clear();
    ctx_->count("branches-removed", p.branches);
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_map<RegId, std::vector<uint32_t>> defSites_;  // blocks (RPO numbers) writing each register
  std::unordered_set<const Instruction*> refused_, skipBranches_;
  std::unordered_set<const BasicBlock*> touched_;  // blocks of the regions converted in this walk
  int64_t maxSize_ = 0, maxDepth_ = 0, maxLiveMasks_ = 0, maxExtra_ = 0, bosccMin_ = 0;
  double treeDivergenceCost_ = 1.5, prior_ = -1;
  bool keepInner_ = true, ptxasTriangleCheck_ = true;
  const UniformityInfo* uni_ = nullptr;  // of the current walk
  bool extraLatencyCheck_ = true, thresholdCheck_ = true, loops_ = false, loadBranchCheck_ = true;
  std::optional<ThreadIndexFacts> threadIndex_;  // of the current walk
  bool speculate_ = true;
  int syncVotes_ = 1;
};

}  // namespace

PassInfo maskRegionsPassInfo() {
  return {"mask-regions",
          "nested divergent if/else regions become straight-line code under mask predicates (a mask stack), "
          "with uniform skips over sides no lane runs",
          "004, SPMD code generation with execution masks",
          {
              {"max-size", KnobType::Int, "48", "most instructions in a region (E's own and the jumps not counted)"},
              {"max-depth", KnobType::Int, "8", "deepest nesting of conditional branches in a region"},
              {"max-live-masks", KnobType::Int, "5", "most mask predicates the straight-line code keeps live at once"},
              {"max-extra", KnobType::Int, "24", "most instructions a region may add (mask arithmetic, votes, skip branches)"},
              {"boscc-min", KnobType::Int, "40", "smallest side (instructions) that gets a vote and a uniform skip; 0: none but uniform branches' sides"},
              {"speculate", KnobType::Bool, "true", "leave private temporaries of a block, and the first write of a register dead into the region, unguarded (only values that leave the block, memory and effects take the mask)"},
              {"extra-latency-check", KnobType::Bool, "true", "without a profile, keep a region when both ways of its branch hold long-latency arithmetic (div, rem, sqrt, transcendentals)"},
              {"threshold-check", KnobType::Bool, "true", "without a profile, keep a region whose branch compares the thread index with a warp-uniform bound (at most one warp of a CTA splits on it)"},
              {"load-branch-check", KnobType::Bool, "true", "keep a region in which ptxas would predicate every branch but those around blocks with two or more loads: it branches around those blocks again once they are guarded"},
              {"loops", KnobType::Bool, "false", "loops whose exit diverges become uniform loops under a mask (vote.sync.any on the back edge)"},
              {"tree-divergence-cost", KnobType::Float, "1.5", "with a profile: ptxas.divergence-cost in a region no two of whose paths meet before its end (an else-if chain, a tree of ifs)"},
              {"divergence-prior", KnobType::Float, "0.5", "without a profile: the share of the executions of a branch that may diverge in which it splits, for the expected-cost model; negative: no model, convert what the limits allow"},
              {"keep-inner", KnobType::Bool, "true", "a region the expected-cost model keeps keeps its inner branches too (no conversion of its inner regions one by one)"},
              {"ptxas-triangle-check", KnobType::Bool, "true", "keep a one-branch region whose sides ptxas predicates itself when it defines a register live after it (ptxas makes a SEL of the guarded definition)"},
          },
          [] { return std::make_unique<MaskRegions>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/false,
          /*skipsScopedFunctions=*/true};
}

}  // namespace ptxopt
