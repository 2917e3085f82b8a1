// mask-regions' plans: from the entry block of a region, the straight-line code that would
// replace it (docs/passes/mask-regions.md, "What it does").
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
// Refused here, before any cost: warp-uniform entry branches (a warp runs one side), regions
// whose sides never meet, early exits, and regions with loops, side entries, barriers, warp
// collectives, calls or exits inside, or a label a branch table or debug section names.
#include "MaskRegionsPlan.h"

#include <algorithm>
#include <map>

#include "ptxopt/ir/Cfg.h"

#include "GuardedCode.h"
#include "IfRegion.h"

namespace ptxopt::maskregions {

std::vector<uint32_t> reach(const CfgInfo& cfg, uint32_t from, uint32_t stop, bool self, std::vector<uint8_t>* marks) {
  std::vector<uint32_t> out, stack;
  std::vector<uint8_t> own;
  if (!marks) own.assign(cfg.size(), 0);
  std::vector<uint8_t>& seen = marks ? *marks : own;
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
  if (marks)
    for (uint32_t b : out) seen[b] = 0;
  return out;
}

std::vector<size_t> layoutByRpo(const Function& f, const CfgInfo& cfg) {
  std::vector<size_t> layout(cfg.size(), 0);
  for (size_t k = 0; k < f.blocks().size(); ++k)
    if (int32_t r = cfg.index(f.blocks()[k]); r >= 0) layout[uint32_t(r)] = k;
  return layout;
}

namespace {

// Builds one plan, step by step (build). Each check returns false to give up: with
// `refusal_` set (refuse) when the region is refused, without when it is silently skipped.
// It reads the analyses and knobs through `in_` (the CFG, the most used, as `cfg`).
class PlanBuilder {
 public:
  PlanBuilder(uint32_t entry, const PlanInputs& inputs, Refusal& refusal)
      : in_(inputs), cfg(inputs.cfg), refusal_(refusal), e(entry), E(const_cast<BasicBlock*>(cfg.rpo[e])), br(conditionalBranch(*E)),
        in((inputs.scratch.prepare(), inputs.scratch.in)), pos(inputs.scratch.pos), indeg(inputs.scratch.indeg),
        nest(inputs.scratch.nest), contrib(inputs.scratch.contrib), mask(inputs.scratch.mask) {}
  // The shared arrays clean again: only the region's entries were written.
  ~PlanBuilder() {
    for (uint32_t b : inner) clear(b);
    clear(e);
  }
  PlanBuilder(const PlanBuilder&) = delete;
  PlanBuilder& operator=(const PlanBuilder&) = delete;

  std::optional<Plan> build() {
    if (!findExit() || !collectBlocks() || !checkShape()) return std::nullopt;
    ++p.branches;
    if (inner.empty()) {
      // Both ways lead straight to X: nothing to weigh now. After a conversion the analyses
      // change, so the next walk (if any) asks again, as it always did.
      refusal_.deferred = true;
      return std::nullopt;
    }
    if (!orderBlocks()) return std::nullopt;
    measureDepth();
    findContributions();
    findSkips();
    emitSteps();
    countLiveMasks();
    measureMerges();
    return std::move(p);
  }

 private:
  void clear(uint32_t b) {
    in[b] = 0;
    pos[b] = -1;
    indeg[b] = 0;
    nest[b] = 0;
    contrib[b].clear();
    mask[b] = MRef{};
  }
  std::vector<uint32_t> reachFrom(uint32_t from, uint32_t stop, bool self) {
    return reach(cfg, from, stop, self, &in_.scratch.seen);
  }

  bool refuse(const char* reason, std::string text) {
    refusal_ = {reason, std::move(text)};
    return false;
  }

  // E's branch must be able to split a warp, and the two ways must meet again at X without an
  // early exit between.
  bool findExit() {
    if (!costMayDiverge(in_.uni, E))
      return refuse("uniform",
                    in_.uni.isDivergentBranch(E)
                        ? "the branch is a bra.uni: the PTX asserts that no warp splits on it (a warp runs one side only)"
                        : "the branch is warp-uniform (a warp runs one side only)");
    x = in_.pdt.ipdom(e);
    if (x == in_.pdt.virtualExit || x >= cfg.size())
      return refuse("no-exit", "the sides do not meet again (an exit or a loop that never leaves)");
    // An early exit (`if (i >= n) return;` around the whole body): ptxas ends those lanes with a
    // guarded EXIT; predicating the body under the bound would only add guards.
    xb = cfg.rpo[x];
    if (std::find(cfg.succ[e].begin(), cfg.succ[e].end(), x) != cfg.succ[e].end()) {
      const Instruction* first = nullptr;
      for (const Instruction* i : xb->insts())
        if (!i->info().isPseudo()) {
          first = i;
          break;
        }
      if (first && !first->hasGuard() && (first->is(Opcode::Ret) || first->is(Opcode::Exit)))
        return refuse("early-exit", "an early exit (the lanes that skip the body end at " + xb->name() + ")");
    }
    return true;
  }

  // The blocks between E and X (`inner`, and `in` by RPO number, E included).
  bool collectBlocks() {
    inner = reachFrom(e, x, false);
    for (uint32_t b : inner)
      if (in_.touched.count(cfg.rpo[b])) {  // converted in this walk: the next one sees it
        refusal_.deferred = true;
        return false;
      }
    in[e] = 1;
    for (uint32_t b : inner) {
      if (b == e) return refuse("loop", "the region is a loop");
      in[b] = 1;
    }
    return true;
  }

  // Shape: single entry, no cycle, nothing but branches and fall-through at the ends. Counts
  // the plan's size and the inner conditional branches.
  bool checkShape() {
    for (uint32_t b : inner) {
      const BasicBlock* B = cfg.rpo[b];
      if (!in_.dom.tree.dominates(e, b)) return refuse("side-entry", B->name() + " is entered from outside the region");
      // (Unreachable blocks count: a branch of one would name a block that left the layout.)
      for (const BasicBlock* q : B->preds())
        if (cfg.index(q) < 0 || !in[uint32_t(cfg.index(q))])
          return refuse("side-entry", B->name() + " is entered from outside the region");
      for (uint32_t s : cfg.succ[b])
        if (in[s] && s <= b) return refuse("loop", "a loop inside the region (" + cfg.rpo[s]->name() + ")");
      if (B->hasLabel() && in_.pinned.count(in_.f.labelName(B->label())))
        return refuse("pinned", "a debug section or a branch table names " + B->name());
      const Instruction* t = B->terminator();
      bool conditional = cfg.succ[b].size() == 2;
      if (conditional && conditionalBranch(*const_cast<BasicBlock*>(B)) == nullptr)
        return refuse("unpredicable",
                      "a block with two ways that is not a plain conditional branch (" + B->name() + ")");
      if (cfg.succ[b].size() > 2 || cfg.succ[b].empty())
        return refuse("unpredicable", "a block without one or two successors (" + B->name() + ")");
      for (const Instruction* i : B->insts()) {
        if (i == t && t->is(Opcode::Bra)) continue;
        if (std::string why = whyNotPredicable(*i); !why.empty())
          return refuse("unpredicable", "not predicable: " + why + " (line " + std::to_string(i->loc().line) + ")");
        ++p.size;
      }
      if (conditional) ++p.branches;
    }
    return true;
  }

  // The order: a topological sort that takes the most recently readied block first, so the
  // blocks of a side stay together; among blocks readied together, the earlier in the layout.
  bool orderBlocks() {
    const std::vector<size_t>& layout = in_.layout;
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
    if (p.order.size() != inner.size() + 1) return false;  // (a cycle; refused above)
    for (size_t k = 0; k < p.order.size(); ++k) pos[p.order[k]] = int(k);
    return true;
  }

  // Nesting depth: how many conditional blocks' inner regions hold a block, at most, plus one.
  void measureDepth() {
    for (uint32_t d : p.order)
      if (cfg.succ[d].size() == 2) {
        uint32_t j = in_.pdt.ipdom(d);
        for (uint32_t b : reachFrom(d, j, false))
          if (in[b]) p.depth = std::max(p.depth, ++nest[b]);
      }
    p.depth = std::max(p.depth, 1u);
  }

  // What each block's mask is the union of: the mask of the highest dominator of a predecessor
  // that the block post-dominates, or else the edge from the predecessor (`edgeMask`, filled
  // when the steps reach the edge's source).
  void findContributions() {
    auto highest = [&](uint32_t pred, uint32_t b) -> std::optional<uint32_t> {
      std::optional<uint32_t> best;
      for (int32_t d = int32_t(pred);; d = in_.dom.tree.idom(uint32_t(d))) {
        if (d < 0 || !in[uint32_t(d)]) break;
        if (in_.pdt.tree.dominates(b, uint32_t(d))) best = uint32_t(d);
        if (uint32_t(d) == e) break;
      }
      return best;
    };
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
  }

  // Sides that get a skip: the successor S of a conditional block whose blocks up to S's
  // post-dominator are contiguous from S, dominated by S, and leave only to it.
  void findSkips() {
    if (in_.syncVotes >= 0)
      for (uint32_t d : p.order) {
        if (cfg.succ[d].size() != 2) continue;
        bool uniform = d != e && !in_.uni.isDivergentBranch(cfg.rpo[d]);
        for (uint32_t s : cfg.succ[d]) {
          if (!in[s] || s == in_.pdt.ipdom(d) || skipAt.count(pos[s])) continue;
          uint32_t xs = in_.pdt.ipdom(s);
          std::vector<uint32_t> side = reachFrom(s, xs, true);
          bool ok = !side.empty();
          unsigned insts = 0;
          int last = pos[s];
          for (uint32_t b : side) {
            if (!in[b] || !in_.dom.tree.dominates(s, b)) ok = false;
            if (!ok) break;
            last = std::max(last, pos[b]);
            for (uint32_t t : cfg.succ[b])
              if (t != xs && (!in[t] || !in_.dom.tree.dominates(s, t))) ok = false;
            for (const Instruction* i : cfg.rpo[b]->insts())
              if (!(i == cfg.rpo[b]->terminator() && i->is(Opcode::Bra))) ++insts;
          }
          if (!ok || last - pos[s] + 1 != int(side.size())) continue;
          if (!uniform && (in_.bosccMin <= 0 || insts < unsigned(in_.bosccMin))) continue;
          skipAt[pos[s]] = Skip{last + 1, uniform};
        }
      }
  }

  // A new entry of the value table: a fresh register of type `t`, or the existing predicate `r`.
  int newValue(ScalarType t = ScalarType::Pred) {
    p.values.push_back(Value{kNoReg, t, kNoReg});
    return int(p.values.size() - 1);
  }
  int existing(RegId r) {
    p.values.push_back(Value{r, ScalarType::Pred, kNoReg});
    return int(p.values.size() - 1);
  }
  void step(Step s) {
    if (s.kind != Step::Kind::Orig && s.kind != Step::Kind::Label) ++p.extra;
    p.steps.push_back(s);
  }

  // Block b's mask from its contributions (an `or.pred` for each one past the first).
  void blockMask(uint32_t b, BasicBlock* B) {
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
  }

  // The masks of the edges out of block b that later blocks want, at the end of b.
  void edgeMasks(uint32_t b, BasicBlock* B) {
    Instruction* t = B->terminator();
    bool conditional = cfg.succ[b].size() == 2;
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

  // The steps: the blocks in their order, each with its mask, the skip before a side, its
  // instructions under the mask, and the masks of the edges it leaves by.
  void emitSteps() {
    // Registers written inside the region (E's own instructions excepted).
    for (uint32_t b : inner)
      for (const Instruction* i : cfg.rpo[b]->insts()) i->forEachDefReg([&](RegId r) { written.insert(r); });

    // An instruction may run unguarded, for every lane, when it cannot fault or have an effect
    // and what it writes is a private temporary of its block B: every definition of the
    // register is in a block B dominates, and the register is live neither into E nor into X.
    // Then no lane outside B's mask ever reads it: such a lane does not pass B, so in the
    // branching program it would reach a read of the register only through a definition, and
    // there is none on its path (the seed's unmasked intermediate results).
    const BasicBlock* X = cfg.rpo[x];
    // (A definition in an unreachable block never runs.)
    auto privateTemp = [&](const Instruction* i, uint32_t b) {
      auto dominatedByB = [&](const BasicBlock* site) {
        int32_t k = cfg.index(site);
        return k < 0 || (in[uint32_t(k)] && in_.dom.tree.dominates(b, uint32_t(k)));
      };
      return in_.speculate && writesOnlyPrivateTemporaries(*i, in_.defSites.get(), dominatedByB, {&in_.lv.liveIn[E->id()], &in_.lv.liveIn[X->id()]});
    };

    // The first write in the line of a register dead into E may also run for every lane
    // (FirstWrites). The region is acyclic, so the line runs each instruction at
    // most once (regions refuse loops; MaskLoops runs after the walks and guards a loop body,
    // these instructions included, with the loop's mask).
    FirstWrites firstWrites(in_.lv.liveIn[E->id()]);
    auto firstWrite = [&](const Instruction* i) { return in_.speculate && firstWrites.mayRunUnguarded(*i); };

    std::map<int, int> labelAt;  // position -> plan label
    int memberMask = -1;
    if (!skipAt.empty() && in_.syncVotes == 1) {
      memberMask = newValue(ScalarType::B32);
    }
    for (size_t k = 0; k < p.order.size(); ++k) {
      if (auto l = labelAt.find(int(k)); l != labelAt.end()) step(Step::place(br, l->second));
      uint32_t b = p.order[k];
      BasicBlock* B = const_cast<BasicBlock*>(cfg.rpo[b]);
      if (b != e) {
        blockMask(b, B);
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
      ConjunctionCache<int> conjunctions;  // values of the plan
      for (Instruction* i : B->insts()) {
        if (i == t && t->is(Opcode::Bra)) continue;
        Step s = Step::orig(i, MRef{});
        if (!mask[b].all() && (privateTemp(i, b) || firstWrite(i))) {
          ++p.speculated;
        } else if (!mask[b].all()) {
          if (i->hasGuard()) {
            int v = conjunctions.get(i->guard(), i->guardNegated(), [&] {
              int c = newValue();
              step(Step::op(Step::Kind::And, i, c, mask[b], MRef{existing(i->guard()), i->guardNegated()}));
              ++p.conjunctions;
              return c;
            });
            s.guard = MRef{v, false};
          } else {
            s.guard = mask[b];
          }
        }
        firstWrites.after(*i);
        conjunctions.after(*i);
        step(s);
      }
      edgeMasks(b, B);
    }
    if (auto l = labelAt.find(int(p.order.size())); l != labelAt.end())
      step(Step::place(br, l->second));
  }

  // The most fresh masks live at once.
  void countLiveMasks() {
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
  }

  // X, whether the region is a tree, and how many registers live after it the region defines.
  void measureMerges() {
    p.exit = x;
    p.tree = std::all_of(p.order.begin(), p.order.end(), [&](uint32_t b) { return b == e || cfg.pred[b].size() == 1; });
    for (uint32_t b : p.order) {
      if (b == e) continue;
      std::unordered_set<RegId> defs;
      for (const Instruction* i : cfg.rpo[b]->insts())
        i->forEachDefReg([&](RegId r) {
          if (in_.lv.liveIn[xb->id()].test(r)) defs.insert(r);
        });
      p.mergedDefs += unsigned(defs.size());
    }
  }

  struct Skip {
    int end = 0;  // position after the side
    bool uniform = false;
  };

  // The inputs (cfg, the most used, under its own name).
  const PlanInputs& in_;
  const CfgInfo& cfg;
  Refusal& refusal_;

  // The region, filled step by step.
  uint32_t e;
  BasicBlock* E;
  Instruction* br;
  uint32_t x = 0;                 // X (findExit)
  const BasicBlock* xb = nullptr;
  std::vector<uint32_t> inner;    // the blocks after E (collectBlocks)
  // By RPO number, in the walk's PlanScratch (entries of the region's blocks only):
  std::vector<uint8_t>& in;       // in the region, E included
  std::vector<int>& pos;          // the place in p.order, or -1 (orderBlocks)
  std::vector<uint32_t>& indeg;   // predecessors in the region not yet ordered (orderBlocks)
  std::vector<uint32_t>& nest;    // conditional blocks whose inner region holds the block (measureDepth)
  std::vector<std::vector<Contribution>>& contrib;  // what the block's mask is made of (findContributions)
  std::vector<MRef>& mask;        // the block's mask (emitSteps)
  std::map<std::pair<uint32_t, uint32_t>, MRef> edgeMask;  // wanted edges, filled at the source
  std::map<int, Skip> skipAt;     // by the side's first position (findSkips)
  std::unordered_set<RegId> written;  // registers written inside the region, E's own excepted
  Plan p;
};

}  // namespace

std::optional<Plan> buildPlan(uint32_t e, const PlanInputs& inputs, Refusal& refusal) {
  return PlanBuilder(e, inputs, refusal).build();
}

}  // namespace ptxopt::maskregions
