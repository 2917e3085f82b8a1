// meld: the two sides of a lane-divergent branch that do the same kind of work become one
// sequence (control-flow melding, after DARM: Saumya, Sundararajah, Kulkarni, CGO 2022; issue
// #35, docs/passes/meld.md).
//
//   H: ... @%c bra T;          H: ... mov.pred %pm, %c; bra M1;
//   F: (side R)          ->    M1..Mk: for each pair of blocks (one of T's side, the matching
//   T: (side L)                        one of F's), the aligned instructions: a pair is one
//   J: ...                             instruction whose differing operands a selp on %pm
//                                      chooses; a lone instruction runs under @%pm or @!%pm
//                                      J: ...
//
// Shapes: H's branch may diverge (uniformity, or the profile saw it split); J is H's immediate
// post-dominator; each side is the single-entry region of blocks its first block reaches before
// J, leaving only to J, and the two regions have the same shape: a walk from T and F in step
// pairs every block of one side with one of the other, successor with successor (a conditional
// branch's two targets in either order), J with J. Every lane then walks the melded blocks along
// the path its own side took: a melded conditional branch tests the lane's side's condition.
//
// Why it is sound: each lane runs exactly its own side's instructions, in their order. A pair
// runs once for every lane, on the operands of the lane's side; a lone instruction runs only
// for the lanes of its side. A pair writes one register, so where the two sides' results have
// different names, the right side's register is renamed to the left side's in the whole right
// side: allowed when both are private temporaries (the left one written only in the left side,
// neither live at J, the left one not read on entry to the right side) and no other right
// register takes the same name; where the right side reads its register's value on entry, the
// left side must not read the left name on entry, and H copies the value across (an entry
// copy). A select whose operands nothing in the region writes is written once in H, which
// dominates the region. Nothing convergent (barriers, warp collectives), no call, no atomic and no
// instruction with an effect other than a plain store is melded; a region holding a convergent
// instruction or a call is left alone, since its lanes would run it in other company.
#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Signature.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/passes/PtxasModel.h"

#include "GuardedCode.h"
#include "IfRegion.h"
#include "MeldAlign.h"

namespace ptxopt {

namespace {

// The two sides of a candidate, block by block.
struct MeldRegion {
  BasicBlock* header = nullptr;
  Instruction* branch = nullptr;
  BasicBlock* join = nullptr;
  BasicBlock *left = nullptr, *right = nullptr;  // the taken side's first block, the other's
  BasicBlock* leftFirst = nullptr;               // `left` past the blocks that only jump on
  // Pairs of blocks (left, right) in the left side's layout order; `swapped` when the right
  // block's conditional branch reaches the partner of the left one's taken target by falling
  // through.
  // A pair with one block only (l or r null) is a one-sided block (Meld::Pad): with `passTo`,
  // the conditional block that the other side's lanes pass through on to passTo's pair; without,
  // the excursion only its own side's lanes enter.
  struct Pair {
    BasicBlock *l, *r;
    bool swapped = false;
    BasicBlock* passTo = nullptr;
    bool throughTaken = false;  // a one-sided block's taken edge is the one in step with passTo
  };
  std::vector<Pair> pairs;
  std::unordered_set<const BasicBlock*> leftBlocks, rightBlocks;
};

// The instructions of a block the alignment sees: all but the terminator when it is a branch,
// and the `.pragma` lines (the melded block takes them from both sides, unguarded).
std::vector<Instruction*> body(BasicBlock* b) {
  std::vector<Instruction*> v;
  if (!b) return v;  // the missing block of a one-sided pair
  for (Instruction* i : b->insts())
    if (!i->is(Opcode::Pragma)) v.push_back(i);
  if (!v.empty() && v.back()->is(Opcode::Bra)) v.pop_back();
  return v;
}

bool isImmediate(const Operand& o) { return o.kind == OperandKind::Imm || o.kind == OperandKind::FImm; }

// A leaf that reads a register: the register itself, or an address's base register.
bool readsRegister(const Operand& o) {
  return o.isReg() || (o.kind == OperandKind::Address && o.addressBase() == AddressBase::Reg);
}

// A block that only jumps on (no instruction but an unguarded bra, or none, and one successor).
bool isTrampoline(const BasicBlock* b) {
  if (b->succs().size() != 1 || b->succs()[0].kind == EdgeKind::Indexed) return false;
  for (const Instruction* i : b->insts())
    if (!(i->is(Opcode::Bra) && !i->hasGuard())) return false;
  return true;
}

bool sameMods(const Instruction& a, const Instruction& b) {
  if (a.mods().size() != b.mods().size()) return false;
  for (size_t k = 0; k < a.mods().size(); ++k)
    if (a.mods()[k] != b.mods()[k]) return false;
  return true;
}

// The type a selp (or a predicate select) choosing between leaves `a` and `b` takes; None when
// they cannot be chosen between.
ScalarType selectType(const Function& f, const Operand& a, const Operand& b, ScalarType specType) {
  unsigned bits = 0;
  bool pred = false, fimm = false;
  for (const Operand* o : {&a, &b}) {
    if (o->kind == OperandKind::Reg) {
      if (o->component() != Component::None || o->videoSelector()) return ScalarType::None;
      const RegInfo& ri = f.reg(o->id);
      if (ri.vec) return ScalarType::None;
      if (ri.type == ScalarType::Pred) pred = true;
      unsigned rb = ri.type == ScalarType::Pred ? 1 : typeBits(ri.type);
      if (bits && bits != rb) return ScalarType::None;
      bits = rb;
    } else if (o->kind == OperandKind::FImm) {
      fimm = true;
    } else if (o->kind != OperandKind::Imm) {
      return ScalarType::None;
    }
  }
  if (pred) return a.isReg() && b.isReg() ? ScalarType::Pred : ScalarType::None;
  if (!bits) bits = specType == ScalarType::None ? 0 : typeBits(specType);
  if (fimm) {
    if (specType == ScalarType::F32 && bits == 32) return ScalarType::F32;
    if (specType == ScalarType::F64 && bits == 64) return ScalarType::F64;
    return ScalarType::None;
  }
  switch (bits) {
    case 16: return ScalarType::B16;
    case 32: return ScalarType::B32;
    case 64: return ScalarType::B64;
    default: return ScalarType::None;
  }
}

// Where `x` leads past the blocks that only jump on (at most 64 of them), stopping at `join` and
// at a block `admissible` refuses; the blocks passed go to `passed` when given.
template <class Admissible>
BasicBlock* skipTrampolines(BasicBlock* x, const BasicBlock* join, Admissible&& admissible,
                            std::vector<BasicBlock*>* passed = nullptr) {
  for (unsigned n = 0; x != join && isTrampoline(x) && x->succs()[0].to != x && admissible(x) && n < 64; ++n) {
    if (passed) passed->push_back(x);
    x = x->succs()[0].to;
  }
  return x;
}

class Meld : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    minSimilarity_ = k.getFloat("min-similarity");
    maxBlocks_ = k.getInt("max-blocks");
    maxInsts_ = k.getInt("max-insts");
    longLatencyWeight_ = double(k.getInt("long-latency-weight"));
    memoryWeight_ = double(k.getInt("memory-weight"));
    prior_ = k.getFloat("divergence-prior");
    uniformLoss_ = k.getFloat("uniform-loss");
    loopWeight_ = k.getFloat("loop-weight");
    tried_.clear();
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      const CfgInfo& cfg = am.get<CfgAnalysis>();
      const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();
      pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
      std::optional<DefinitionSites> defs;  // made when a candidate gets as far as pairing
      for (uint32_t v = 0; v < cfg.size(); ++v) {
        BasicBlock* h = const_cast<BasicBlock*>(cfg.rpo[v]);
        Instruction* br = conditionalBranch(*h);
        if (!br || tried_.count(br)) continue;
        uint32_t j = pdt.ipdom(v);
        if (j == pdt.virtualExit) continue;
        if (tryMeld(h, br, const_cast<BasicBlock*>(cfg.rpo[j]), am, defs)) {
          buildCfg(f);
          am.invalidate(PreservedAnalyses::none());  // cfg and pdt are gone: walk again
          changed = again = true;
          break;
        }
      }
    }
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  struct Plan {
    std::vector<std::vector<AlignStep>> steps;  // per pair of blocks
    std::vector<std::vector<Instruction*>> lbody, rbody;
    // Per pair of blocks: how often its left and its right block run per warp that enters
    // that side (sideRuns), and what the melded block issues (its pairs, selects, lone
    // instructions and branch).
    std::vector<double> lruns, rruns, meldedBlock;
    double leftCost = 0, rightCost = 0, matched = 0, total = 0;
    double hoisted = 0;  // the distinct instructions that go to H
    unsigned pairs = 0, selects = 0;  // instruction pairs; the instructions choosing operands
    unsigned entryCopies = 0;         // right registers renamed whose value on entry H copies
    // How often the melded block of pair `p` runs for a warp that splits: as often as the more
    // frequent of its two blocks (a melded loop runs until its last lane leaves).
    double meldedRuns(size_t p) const { return std::max(lruns[p], rruns[p]); }
  };

  bool refuse(const MeldRegion& r, const std::string& counter, const std::string& why) {
    ctx_->count("refused-" + counter);
    ctx_->remark(r.header, "keep", "branch at line " + std::to_string(r.branch->loc().line) + ": " + why,
                 {{"line", double(r.branch->loc().line)}});
    return false;
  }

  // ---- the shape ------------------------------------------------------------------------

  // A conditional block that only one side has (DARM's one-sided region, in its smallest form):
  // `at` on `side` (0 left, 1 right) branches to `excursion`, a block entered from `at` alone
  // that jumps on, and to `through`, where that side goes on in step with the other. The other
  // side's lanes pass through `at`'s melded block on to `through`'s partner; `excursion` is
  // melded with nothing. LUD's column side: `if (i == 0)` around its inner loop, which the row
  // side (from i = 1) does not test.
  struct Pad {
    int side = -1;
    BasicBlock *at = nullptr, *excursion = nullptr, *through = nullptr;
  };

  // Pairs the blocks of the two sides: the walk in step, and where it fails on "the two sides
  // branch differently", again with each one-sided conditional block (Pad) a side has; of the
  // pads that pair, the one whose pairs of blocks share the most instructions of one opcode (the
  // first in layout order among equals).
  bool pairBlocks(MeldRegion& r, std::string& why) {
    if (walkInStep(r, Pad{}, why) || why != kBranchDifferently) return why.empty();
    auto admissible = [&](BasicBlock* x) {
      return x != r.header && x != f_->entry() && !(x->hasLabel() && pinned_.count(f_->labelName(x->label())));
    };
    std::vector<Pad> pads;
    for (int side = 0; side < 2; ++side) {
      for (BasicBlock* x : sideBlocks(r, side ? r.right : r.left))
        for (int arm = 0; arm < 2 && x->succs().size() == 2; ++arm) {
          BasicBlock* e = x->succs()[arm].to;
          BasicBlock* t = x->succs()[1 - arm].to;
          // The excursion: entered from x alone, jumping on elsewhere, a block the rewrite may
          // remove; the through block must lead away from x (a loop of x on itself would
          // bring the walk back to x for ever: the review's hang).
          if (e == r.join || e == x || e->preds().size() != 1 || e->succs().size() != 1 || e->succs()[0].to == x ||
              e->succs()[0].kind == EdgeKind::Indexed || isTrampoline(e) || !conditionalBranch(*x) ||
              !admissible(e) || !admissible(x) || skipTrampolines(t, r.join, admissible) == x)
            continue;
          pads.push_back(Pad{side, x, e, t});
        }
    }
    const Pad* best = nullptr;
    double bestCommon = -1;
    for (const Pad& pad : pads) {
      std::string padWhy;
      if (!walkInStep(r, pad, padWhy)) continue;
      if (double c = commonWeight(r); c > bestCommon) best = &pad, bestCommon = c;
    }
    if (!best) return false;
    walkInStep(r, *best, why);
    return true;
  }

  // The weight of the instructions of one opcode the pairs of blocks have in common (a bound of
  // what the alignment pairs, each pair of blocks counted once).
  double commonWeight(const MeldRegion& r) const {
    double common = 0;
    for (const auto& p : r.pairs) {
      std::unordered_map<uint32_t, std::pair<double, double>> byOpcode;
      for (int side = 0; side < 2; ++side)
        for (Instruction* i : body(side ? p.r : p.l)) {
          auto& e = byOpcode[static_cast<uint32_t>(i->opcode())];
          (side ? e.second : e.first) += weight(*i);
        }
      for (const auto& [op, w] : byOpcode) common += std::min(w.first, w.second);
    }
    return common;
  }

  // The blocks a side's first block reaches before the join (at most max-blocks of them, more
  // are not walked anyway), in layout order.
  std::vector<BasicBlock*> sideBlocks(const MeldRegion& r, BasicBlock* first) const {
    std::unordered_set<const BasicBlock*> seen{first};
    std::vector<BasicBlock*> work{first};
    while (!work.empty() && int64_t(seen.size()) <= 2 * maxBlocks_) {
      BasicBlock* x = work.back();
      work.pop_back();
      for (const Edge& e : x->succs())
        if (e.to != r.join && e.to != r.header && seen.insert(e.to).second) work.push_back(e.to);
    }
    std::vector<BasicBlock*> out;
    for (BasicBlock* x : f_->blocks())
      if (seen.count(x)) out.push_back(x);
    return out;
  }

  static constexpr const char* kBranchDifferently = "the two sides branch differently";

  // The walk in step from (l, r), with `pad` when it has a side: false when the shapes differ or
  // a side leaves the region other than to the join.
  bool walkInStep(MeldRegion& r, const Pad& pad, std::string& why) {
    r.pairs.clear();
    r.leftBlocks.clear();
    r.rightBlocks.clear();
    forward_.clear();
    std::unordered_map<const BasicBlock*, BasicBlock*> toRight, toLeft;
    std::vector<std::pair<BasicBlock*, BasicBlock*>> work{{r.left, r.right}};
    std::unordered_set<const BasicBlock*> swapped;  // left blocks whose targets pair crosswise
    BasicBlock* passTo = nullptr;                   // the other side's block pad.at passes its lanes to
    auto admissible = [&](BasicBlock* x) {
      return x != r.header && x != f_->entry() && !(x->hasLabel() && pinned_.count(f_->labelName(x->label())));
    };
    // Past the blocks that only jump on, each of which belongs to the side and leads (forward_)
    // where the walk ends.
    auto forward = [&](BasicBlock* x, std::unordered_set<const BasicBlock*>& side) {
      std::vector<BasicBlock*> passed;
      BasicBlock* to = skipTrampolines(x, r.join, admissible, &passed);
      for (BasicBlock* t : passed) {
        side.insert(t);
        forward_[t] = to;
      }
      return to;
    };
    // Each block pair is entered at most twice per successor edge; a walk longer than that has
    // gone round in circles.
    for (size_t steps = 0; !work.empty(); ++steps) {
      if (steps > 8 * size_t(maxBlocks_) + 16) return why = kBranchDifferently, false;
      auto [a, b] = work.back();
      work.pop_back();
      a = forward(a, r.leftBlocks);
      b = forward(b, r.rightBlocks);
      if (pad.side >= 0 && (pad.side ? b : a) == pad.at) {
        // The other side passes through: on every visit the same block of it.
        BasicBlock* other = pad.side ? a : b;
        if (passTo && passTo != other) return why = "a one-sided block is reached in step with two blocks", false;
        if (!passTo) {
          if (other == r.join || !admissible(pad.at)) return why = kBranchDifferently, false;
          passTo = other;
        }
        work.push_back(pad.side ? std::pair{a, pad.through} : std::pair{pad.through, b});
        continue;
      }
      if (a == r.join || b == r.join) {
        if (a != b) return why = "one side reaches the join where the other does not", false;
        continue;
      }
      auto ia = toRight.find(a);
      auto ib = toLeft.find(b);
      if (ia != toRight.end() || ib != toLeft.end()) {
        if (ia == toRight.end() || ib == toLeft.end() || ia->second != b || ib->second != a)
          return why = kBranchDifferently, false;
        continue;
      }
      if (!admissible(a) || !admissible(b)) return why = "a side block is the entry, the header or a pinned label", false;
      if (int64_t(toRight.size()) >= maxBlocks_) return why = "more than max-blocks blocks in a side", false;
      toRight[a] = b;
      toLeft[b] = a;
      if (a->succs().size() != b->succs().size() || a->succs().empty() || a->succs().size() > 2)
        return why = kBranchDifferently, false;
      for (BasicBlock* x : {a, b})
        for (const Edge& e : x->succs())
          if (e.kind == EdgeKind::Indexed) return why = "an indexed branch inside a side", false;
      if (a->succs().size() == 1) {
        for (BasicBlock* x : {a, b}) {
          const Instruction* t = x->terminator();
          if (t && t->info().isTerminator() && !(t->is(Opcode::Bra) && !t->hasGuard()))
            return why = "a guarded ret, exit or trap inside a side", false;
        }
        work.push_back({a->succs()[0].to, b->succs()[0].to});
        continue;
      }
      if (!conditionalBranch(*a) || !conditionalBranch(*b)) return why = "a side block's branch is not a plain conditional bra", false;
      BasicBlock *at = a->successor(EdgeKind::Taken), *af = a->successor(EdgeKind::FallThrough);
      BasicBlock *bt = b->successor(EdgeKind::Taken), *bf = b->successor(EdgeKind::FallThrough);
      // Taken with taken unless that contradicts what is known (the join, a pairing made).
      auto clash = [&](BasicBlock* x, BasicBlock* y) {
        x = skipTrampolines(x, r.join, admissible);
        y = skipTrampolines(y, r.join, admissible);
        if (pad.side >= 0 && (pad.side ? y : x) == pad.at) {  // in step with passTo only
          BasicBlock* o = pad.side ? x : y;
          return o == r.join || (passTo && passTo != o);
        }
        if ((x == r.join) != (y == r.join)) return true;
        auto ix = toRight.find(x);
        auto iy = toLeft.find(y);
        return (ix != toRight.end() && ix->second != y) || (iy != toLeft.end() && iy->second != x);
      };
      bool swap = clash(at, bt) || clash(af, bf);
      if (swap) swapped.insert(a);
      work.push_back({af, swap ? bt : bf});
      work.push_back({at, swap ? bf : bt});
    }
    // The one-sided blocks: pad.at was reached, and the excursion rejoins the walk (a paired
    // block of its side, or the join).
    BasicBlock* rejoin = nullptr;
    if (pad.side >= 0) {
      if (!passTo) return why = kBranchDifferently, false;
      rejoin = forward(pad.excursion->succs()[0].to, pad.side ? r.rightBlocks : r.leftBlocks);
      if (rejoin != r.join && !(pad.side ? toLeft.count(rejoin) : toRight.count(rejoin)))
        return why = kBranchDifferently, false;
      for (BasicBlock* x : {pad.at, pad.excursion}) (pad.side ? r.rightBlocks : r.leftBlocks).insert(x);
    }
    // Single entry: a side block is entered only from its own side, its first block from H only.
    for (const auto& [x, y] : toRight) {
      r.leftBlocks.insert(x);
      r.rightBlocks.insert(y);
    }
    for (const BasicBlock* start : {r.left, r.right})
      if (start->preds().size() != 1) return why = "a side's first block has other predecessors", false;
    r.leftFirst = forward(r.left, r.leftBlocks);
    for (auto* side : {&r.leftBlocks, &r.rightBlocks})
      for (const BasicBlock* x : *side)
        for (const BasicBlock* p : x->preds())
          if (!side->count(p) && !(p == r.header && (x == r.left || x == r.right)))
            return why = "a side is entered from outside", false;
    // In the left side's layout order; the one-sided block just before the pair its other side's
    // lanes go on to, the excursion last.
    for (BasicBlock* x : f_->blocks())
      if (toRight.count(x)) r.pairs.push_back({x, toRight[x], swapped.count(x) != 0, nullptr});
    if (pad.side >= 0) {
      auto it = std::find_if(r.pairs.begin(), r.pairs.end(),
                             [&](const MeldRegion::Pair& p) { return (pad.side ? p.l : p.r) == passTo; });
      const bool taken = pad.at->successor(EdgeKind::Taken) == pad.through;
      r.pairs.insert(it, pad.side ? MeldRegion::Pair{nullptr, pad.at, false, passTo, taken}
                                  : MeldRegion::Pair{pad.at, nullptr, false, passTo, taken});
      r.pairs.push_back(pad.side ? MeldRegion::Pair{nullptr, pad.excursion, false, nullptr}
                                 : MeldRegion::Pair{pad.excursion, nullptr, false, nullptr});
    }
    return true;
  }

  // Why the sides cannot be melded at all (empty when they can).
  std::string whyNotMeldable(const MeldRegion& r) const {
    for (const auto& p : r.pairs)
      for (BasicBlock* x : {p.l, p.r})
        for (Instruction* i : body(x)) {
          std::string why = whyNotPredicable(*i);
          if (!why.empty()) return why + " (line " + std::to_string(i->loc().line) + ")";
          if (i->has(Mod::Cc) || i->info().is(OpFlag::ReadsCarry))
            return "a carry-flag instruction (line " + std::to_string(i->loc().line) + ")";
        }
    return {};
  }

  // ---- pairing instructions ------------------------------------------------------------

  // Whether the two sides have enough instructions of common opcodes that their pairs could
  // reach min-similarity: a bound of the alignment's result (which pairs only instructions of one
  // opcode within one pair of blocks), counted before it. Both count each pair of blocks as
  // often as its melded block would run (the more of its two blocks' runs).
  bool mayPairEnough(const MeldRegion& r, const Plan& plan) const {
    double common = 0, total = 0;
    for (size_t p = 0; p < r.pairs.size(); ++p) {
      std::unordered_map<uint32_t, std::pair<double, double>> byOpcode;  // weights, left and right
      for (int side = 0; side < 2; ++side)
        for (Instruction* i : body(side ? r.pairs[p].r : r.pairs[p].l)) {
          double w = weight(*i);
          total += w * plan.meldedRuns(p);
          auto& e = byOpcode[static_cast<uint32_t>(i->opcode())];
          (side ? e.second : e.first) += w;
        }
      for (const auto& [op, w] : byOpcode) common += std::min(w.first, w.second) * plan.meldedRuns(p);
    }
    return common >= minSimilarity_ * std::max(1.0, total) - 1e-9;
  }

  // An instruction's weight: the SASS instructions it issues (one, a long-latency arithmetic
  // one a sequence of them), a memory access `memory-weight` (the opcode table also marks loads
  // long-latency: their latency is not what melding saves).
  double weight(const Instruction& i) const {
    if (i.info().is(OpFlag::MemRead | OpFlag::MemWrite | OpFlag::Atomic))
      return isParamSpace(i.space()) || i.space() == StateSpace::Const ? 1 : memoryWeight_;
    if (i.info().is(OpFlag::LongLatency)) return longLatencyWeight_;
    return PtxasModel::issueWidth(i.opcode(), i.type());
  }

  // Whether the right side's register `rr` may take the left side's name `rl` (see the header).
  // Where the right side reads `rr`'s value on entry, the left side must not read `rl`'s: H then
  // copies `rr` into `rl` (entryCopy), which the left side's lanes overwrite before they read it
  // (DARM's phi at the melded loop's entry: a binary search whose bound is a parameter on one
  // side and computed on the other); not for an 8-bit register, which no `mov` copies.
  bool renamable(RegId rl, RegId rr) const {
    if (rl == rr) return true;
    const RegInfo &a = f_->reg(rl), &b = f_->reg(rr);
    if (a.type != b.type || a.vec != b.vec || a.scope != 0 || b.scope != 0) return false;
    const BitVector& inR = lv_->liveIn[region_->right->id()];
    const BitVector& atJ = lv_->liveIn[region_->join->id()];
    if (inR.test(rl) || atJ.test(rl) || atJ.test(rr)) return false;
    if (inR.test(rr) && (lv_->liveIn[region_->left->id()].test(rl) || copyType(a.type) == ScalarType::None)) return false;
    return defs_->allIn(rl, [&](const BasicBlock* x) { return region_->leftBlocks.count(x) != 0; });
  }

  // Whether renaming `rr` needs its value copied in H (renamable).
  bool entryCopy(RegId rr) const { return lv_->liveIn[region_->right->id()].test(rr); }

  RegId renamed(RegId r) const {
    auto it = rename_.find(r);
    return it == rename_.end() ? r : it->second;
  }

  // How a register read by a pair is compared with the other side's: under any renaming that
  // renamable() allows (the first alignment), consistently with the renaming decided so far
  // (the second), or under the renaming as decided (the rewrite and its cost).
  enum class Naming { Any, Extend, Decided };
  bool sameReg(RegId l, RegId r, Naming n) const {
    switch (n) {
      case Naming::Any: return renamable(l, r);
      case Naming::Decided: return l == renamed(r);
      case Naming::Extend: {
        auto it = rename_.find(r);
        if (it != rename_.end()) return it->second == l;
        return !leftOf_.count(l) && renamable(l, r);
      }
    }
    return false;
  }

  // Whether a leaf has the same value everywhere in the region: an immediate, or a register
  // neither side writes (under either name). A select of two such leaves goes to H, once.
  bool invariant(const Operand& o) const {
    return isImmediate(o) || (readsRegister(o) && !written_.count(o.id));
  }

  // What choosing between two leaves costs: instructions in the melded block, and instructions
  // in H (selects of invariant leaves, shared by every pair that asks for the same one).
  // A base register chosen between two others in a melded block, the left one moved by `diff`
  // (the two offsets' difference): every address of the block on the same two bases with the
  // same difference reads it, until an instruction writes either base.
  struct MovedBase {
    RegId left, right;  // the right one under its new name
    int64_t diff;
    int count;  // the instructions that choose it: the select, and the add moving the left base
  };
  struct Selects {
    int body = 0, hoisted = 0;
    bool swapped = false;            // the right instruction's two sources are paired crosswise
    // Of `body`, the chosen bases (an instruction has at most two addresses: cp.async), which a
    // block makes once; a fixed array, since the alignment asks for every pair of instructions.
    std::array<MovedBase, 2> bases{};
    unsigned numBases = 0;
  };

  // The selects a pair of leaves read by two paired instructions needs (added to `s`); false
  // when nothing can choose between them. `hoistedKeys`, when given, receives a name for each
  // instruction that goes to H, so that the cost counts each once.
  bool leafSelects(const Operand& a, const Operand& b, ScalarType specType, Naming n, Selects& s,
                   std::vector<std::string>* hoistedKeys = nullptr) const {
    if (a.kind == OperandKind::Reg && b.kind == OperandKind::Reg && a.aux == b.aux && a.value == b.value &&
        a.flags == b.flags) {
      if (sameReg(a.id, b.id, n)) return true;
    } else if (a == b) {
      return true;
    }
    auto key = [&](const char* what, std::initializer_list<int64_t> parts) {
      if (!hoistedKeys) return;
      std::string k = what;
      for (int64_t x : parts) k += ":" + std::to_string(x);
      hoistedKeys->push_back(std::move(k));
    };
    if (a.kind == OperandKind::Address || b.kind == OperandKind::Address) {
      // [base+offset]. The same base (under the renaming) with other offsets: the base moved by
      // a select of the offsets' difference and 0 (an invariant select). Other bases: the left
      // base moved by the offsets' difference where they differ, then a select of the bases.
      if (a.kind != b.kind || a.aux != b.aux) return false;
      if (a.addressBase() != AddressBase::Reg) return a == b;  // a symbol's or an absolute address
      const bool sameBase = sameReg(a.id, b.id, n);
      if (sameBase && a.value == b.value) return true;
      const ScalarType baseType = selectType(*f_, Operand::reg(a.id), Operand::reg(b.id), ScalarType::None);
      if (baseType == ScalarType::None) return false;
      const int w = int(PtxasModel::issueWidth(Opcode::Selp, baseType));  // the add's width too
      // What chooseOperands writes: for one base, an add of a select of the two offsets (ptxas
      // puts the select of immediates back into the add); for two, each base moved by its
      // offset where the offsets differ and is not 0, then a select. Once per block for the
      // addresses on the same bases at the same distance (MovedBase).
      const int k = sameBase ? 2 * w : (1 + (a.value != b.value ? (a.value != 0) + (b.value != 0) : 0)) * w;
      if (sameBase ? invariant(a) : invariant(a) && invariant(b)) {
        s.hoisted += k;
        key("base", {int64_t(a.id), int64_t(renamed(b.id)), a.value, b.value});
      } else {
        s.body += k;
        if (s.numBases < s.bases.size()) s.bases[s.numBases++] = {a.id, renamed(b.id), a.value - b.value, k};
      }
      return true;
    }
    const ScalarType t = selectType(*f_, a, b, specType);
    if (t == ScalarType::None) return false;
    // A select of two immediates goes to H too, but ptxas puts it back: the reader becomes two
    // instructions, the second under the side's predicate (`VIADD R, R, 3; @P VIADD R, R, -3`).
    const int w = int(PtxasModel::issueWidth(Opcode::Selp, t));
    if (invariant(a) && invariant(b) && !(isImmediate(a) && isImmediate(b))) {
      s.hoisted += w;
      key("select", {int64_t(a.kind), a.isReg() ? int64_t(a.id) : a.value, int64_t(a.flags), int64_t(b.kind),
                     b.isReg() ? int64_t(renamed(b.id)) : b.value, int64_t(b.flags), int64_t(t)});
    } else {
      s.body += w;
    }
    return true;
  }

  // The selects pairing `a` (left) with `b` (right) needs, or nullopt when they cannot pair. The
  // two sources of a commutative operation pair crosswise where that needs fewer selects.
  std::optional<Selects> pairSelects(const Instruction& a, const Instruction& b, Naming n,
                                     std::vector<std::string>* hoistedKeys = nullptr) const {
    if (a.opcode() != b.opcode() || !sameMods(a, b) || a.payload() != b.payload() || a.numOperands() != b.numOperands())
      return std::nullopt;
    const OpcodeInfo& info = a.info();
    if (signatureOf(a.opcode()).isFree() || a.firstOperandAlsoRead() || info.is(OpFlag::Atomic | OpFlag::Texture))
      return std::nullopt;
    if (a.hasSideEffects() && !(info.is(OpFlag::MemWrite) && a.memoryStrength() == Instruction::MemoryStrength::Weak))
      return std::nullopt;
    if (a.hasGuard() != b.hasGuard() || a.guardNegated() != b.guardNegated()) return std::nullopt;
    if (a.hasGuard() && !sameReg(a.guard(), b.guard(), n)) return std::nullopt;
    const OperandShape* shape = selectShape(a);
    if (!shape) return std::nullopt;
    const unsigned defs = a.numDefOperands();
    auto selectsFor = [&](bool crosswise, std::vector<std::string>* keys) -> std::optional<Selects> {
      Selects selects;
      selects.swapped = crosswise;
      for (uint32_t k = 0; k < a.numOperands(); ++k) {
        const uint32_t kb = crosswise && k >= defs ? 2 * defs + 1 - k : k;
        const Operand &oa = a.operand(k), &ob = b.operand(kb);
        if (oa.kind != ob.kind || (oa.isComposite() && oa.aux != ob.aux)) return std::nullopt;
        std::vector<const Operand*> la, lb;
        a.visitLeaves(oa, [&](const Operand& o) { la.push_back(&o); });
        b.visitLeaves(ob, [&](const Operand& o) { lb.push_back(&o); });
        if (la.size() != lb.size()) return std::nullopt;
        const OperandSpec* spec = specAt(shape, k);
        ScalarType specType = spec ? resolveType(spec->type, a) : ScalarType::None;
        for (size_t e = 0; e < la.size(); ++e) {
          const Operand &x = *la[e], &y = *lb[e];
          if (k < defs) {
            if (x.kind == OperandKind::Sink && y.kind == OperandKind::Sink) continue;
            if (!x.isReg() || !y.isReg() || x.aux != y.aux || x.value != y.value) return std::nullopt;
            if (!sameReg(x.id, y.id, n)) return std::nullopt;
            continue;
          }
          if (x.kind == OperandKind::Label || x.kind == OperandKind::Symbol || x.kind == OperandKind::Special) {
            if (!(x == y)) return std::nullopt;
            continue;
          }
          if (!leafSelects(x, y, specType, n, selects, keys)) return std::nullopt;
        }
      }
      return selects;
    };
    std::vector<std::string> straightKeys, crossedKeys;
    std::optional<Selects> best = selectsFor(false, hoistedKeys ? &straightKeys : nullptr);
    std::vector<std::string>* chosenKeys = &straightKeys;
    if (info.is(OpFlag::Commutative) && a.numOperands() == defs + 2 && !a.operand(defs).isComposite() &&
        !a.operand(defs + 1).isComposite() && (!best || best->body + best->hoisted > 0)) {
      std::optional<Selects> crossed = selectsFor(true, hoistedKeys ? &crossedKeys : nullptr);
      if (crossed && (!best || crossed->body + crossed->hoisted < best->body + best->hoisted)) {
        best = crossed;
        chosenKeys = &crossedKeys;
      }
    }
    if (hoistedKeys && best) hoistedKeys->insert(hoistedKeys->end(), chosenKeys->begin(), chosenKeys->end());
    return best;
  }

  // A pair's worth: what the two instructions cost lone (cost(): each its weight, and one more
  // each where it writes a register under its side's guard) less what the pair costs (one weight
  // and its selects). A pair that only breaks even still counts a little (kTieBonus): its one
  // result name lets later pairs read the same register on both sides without a select.
  static constexpr double kTieBonus = 0.5;
  static constexpr double kGuardedWriteCost = 1;
  // In a block pair that runs `runs` times per entry into the region, a select that goes to H
  // costs its share of one execution.
  double pairScore(const Instruction& a, const Instruction& b, Naming n, double runs) const {
    std::optional<Selects> s = pairSelects(a, b, n);
    if (!s) return 0;
    return weight(a) + (a.numDefOperands() ? 2 * kGuardedWriteCost : 0) - s->body - s->hoisted / std::max(1.0, runs) +
           kTieBonus;
  }

  // ---- the decision ---------------------------------------------------------------------

  bool tryMeld(BasicBlock* h, Instruction* br, BasicBlock* j, FunctionAnalysisManager& am,
               std::optional<DefinitionSites>& defs) {
    tried_.insert(br);
    MeldRegion r;
    r.header = h;
    r.branch = br;
    r.join = j;
    r.left = h->successor(EdgeKind::Taken);
    r.right = h->successor(EdgeKind::FallThrough);
    if (!r.left || !r.right || r.left == r.right) return false;
    if (r.left == j || r.right == j) {
      ctx_->count("refused-one-sided");
      return false;
    }
    const BranchCounts* counts = usableCounts(*ctx_, *br);
    if (counts && counts->divergentFraction() <= 0)
      return refuse(r, "uniform", "the profile never saw it split a warp");
    std::string why;
    if (!pairBlocks(r, why)) return refuse(r, "shape", why);
    if (r.pairs.empty()) {  // a side of blocks that only jump on to the join
      ctx_->count("refused-one-sided");
      return false;
    }
    why = whyNotMeldable(r);
    if (!why.empty()) return refuse(r, "convergent", why);

    const BranchOdds odds = counts ? BranchOdds::fromCounts(*counts) : BranchOdds::fromPrior(true, prior_);
    const CfgInfo& cfg = am.get<CfgAnalysis>();
    Plan plan;
    const auto lruns = sideRuns(r, r.leftBlocks, r.left, cfg, counts, odds.taken);
    const auto rruns = sideRuns(r, r.rightBlocks, r.right, cfg, counts, odds.fall);
    // A one-sided block that the other side's lanes pass through runs for them as often as
    // passTo; its excursion, for its own side only.
    for (const auto& p : r.pairs) {
      plan.lruns.push_back(p.l ? lruns.at(p.l) : p.passTo ? lruns.at(p.passTo) : 0.0);
      plan.rruns.push_back(p.r ? rruns.at(p.r) : p.passTo ? rruns.at(p.passTo) : 0.0);
    }
    if (!mayPairEnough(r, plan))
      return refuse(r, "dissimilar", "the two sides' common opcodes cannot reach min-similarity");
    // Asked last of the cheap tests: the uniformity analysis costs more than all of them (on
    // thrust_sort, 41 M of the pass's 57 M instructions when it was asked first).
    if (!counts && !costMayDiverge(am.get<UniformityAnalysis>(), h))
      return refuse(r, "uniform", std::string(divergenceWord(false, *br)) + " branch: each warp runs one side");
    if (!defs) defs.emplace(*f_);
    region_ = &r;
    lv_ = &am.get<LivenessAnalysis>();
    defs_ = &*defs;
    rename_.clear();
    leftOf_.clear();
    written_.clear();
    for (const auto* side : {&r.leftBlocks, &r.rightBlocks})
      for (const BasicBlock* x : *side)
        for (const Instruction* i : x->insts())
          for (uint32_t k = 0; k < i->numDefOperands(); ++k)
            i->visitLeaves(i->operand(k), [&](const Operand& o) {
              if (o.isReg()) written_.insert(o.id);
            });
    for (const auto& p : r.pairs) {
      plan.lbody.push_back(body(p.l));
      plan.rbody.push_back(body(p.r));
      const auto &lb = plan.lbody.back(), &rb = plan.rbody.back();
      if (int64_t(lb.size()) > maxInsts_ || int64_t(rb.size()) > maxInsts_)
        return refuse(r, "size", "a block of more than max-insts instructions");
    }
    // Aligned twice: first under any renaming, then, with the renaming the first alignment's
    // pairs decided, consistently with it (a pair the first alignment chose between equal ones
    // may have come apart on a name another pair took).
    for (Naming n : {Naming::Any, Naming::Extend}) {
      plan.steps.clear();
      for (size_t p = 0; p < r.pairs.size(); ++p) {
        const auto &lb = plan.lbody[p], &rb = plan.rbody[p];
        const double runs = plan.meldedRuns(p);
        plan.steps.push_back(
            alignSequences(lb.size(), rb.size(), [&](size_t x, size_t y) { return pairScore(*lb[x], *rb[y], n, runs); }));
      }
      decideRenames(plan);
    }
    cost(r, plan);

    // The decision (docs/passes/meld.md, "The decision"): similar enough, cheaper than the
    // branch as ptxas would compile it, and, without a profile, not much dearer than one side
    // alone (what a warp on which the branch does not split runs).
    const double similarity = plan.matched / std::max(1.0, plan.total);
    double branching = expectedBranchCost(ctx_->ptxas(), odds, plan.leftCost, plan.rightCost);
    if (ptxasPredicates(r, plan)) branching = std::min(branching, plan.leftCost + plan.rightCost);
    const double oneSide = std::max(plan.leftCost, plan.rightCost);
    // A warp runs a melded block as often as its own side's block, or, when it splits, meldedRuns.
    double melded = 1 + plan.hoisted, meldedUnsplit = melded;  // the copy of H's condition, H's selects
    for (size_t p = 0; p < r.pairs.size(); ++p) {
      const double l = plan.lruns[p], rr = plan.rruns[p];
      melded += plan.meldedBlock[p] * ((odds.taken - odds.split) * l + (odds.fall - odds.split) * rr +
                                       odds.split * plan.meldedRuns(p));
      meldedUnsplit += plan.meldedBlock[p] * plan.meldedRuns(p);
    }
    char text[240];
    std::snprintf(text, sizeof text,
                  "%zu block pair(s), %u instruction pair(s), similarity %.2f; %.1f instructions melded against %.2f "
                  "branching (%s), %.1f on one side",
                  r.pairs.size(), plan.pairs, similarity, melded, branching, counts ? "profile" : "prior", oneSide);
    std::vector<std::pair<std::string, double>> figures = {{"line", double(br->loc().line)},
                                                           {"similarity", similarity},
                                                           {"melded", melded},
                                                           {"branching", branching},
                                                           {"one-side", oneSide}};
    auto keep = [&](const char* counter) {
      ctx_->count(counter);
      ctx_->remark(h, "keep", text, figures);
      return false;
    };
    if (similarity < minSimilarity_) return keep("refused-dissimilar");
    if (!convertedWins(melded, branching)) return keep("refused-cost");
    if (!counts && meldedUnsplit > uniformLoss_ * oneSide + 1e-9) return keep("refused-uniform-loss");
    emit(r, plan);
    ctx_->count("melded");
    ctx_->count("melded-blocks", r.pairs.size());
    ctx_->count("melded-one-sided", size_t(std::count_if(r.pairs.begin(), r.pairs.end(), [](const auto& p) { return !p.l || !p.r; })));
    ctx_->count("melded-instructions", plan.pairs);
    ctx_->count("selects", plan.selects);
    ctx_->count("entry-copies", plan.entryCopies);
    ctx_->remark(h, "meld", text, figures);
    return true;
  }

  // The renaming of right registers that the pairs ask for, each right register to at most one
  // left one and back; a pair whose renaming conflicts with an earlier one, or whose operands
  // then cannot be chosen between, comes apart into two lone instructions.
  void decideRenames(Plan& plan) {
    rename_.clear();
    leftOf_.clear();
    for (size_t p = 0; p < plan.steps.size(); ++p)
      for (AlignStep& s : plan.steps[p]) {
        if (!s.isPair()) continue;
        const Instruction &a = *plan.lbody[p][s.left], &b = *plan.rbody[p][s.right];
        std::vector<std::pair<RegId, RegId>> want;
        for (uint32_t k = 0; k < a.numDefOperands(); ++k) {
          std::vector<RegId> la, lb;
          a.visitLeaves(a.operand(k), [&](const Operand& o) { if (o.isReg()) la.push_back(o.id); });
          b.visitLeaves(b.operand(k), [&](const Operand& o) { if (o.isReg()) lb.push_back(o.id); });
          for (size_t e = 0; e < la.size() && e < lb.size(); ++e) want.push_back({la[e], lb[e]});
        }
        bool ok = true;
        for (auto [l, rr] : want) {
          if (l == rr) {
            ok = ok && !rename_.count(rr) && !leftOf_.count(l);
            continue;
          }
          auto ir = rename_.find(rr);
          auto il = leftOf_.find(l);
          ok = ok && (ir == rename_.end() || ir->second == l) && (il == leftOf_.end() || il->second == rr);
        }
        if (!ok) {
          s = {-1, -1};  // taken apart below
          continue;
        }
        for (auto [l, rr] : want)
          if (l != rr) {
            rename_[rr] = l;
            leftOf_[l] = rr;
          }
      }
    // Pairs whose guards or operands differ under the renaming as decided come apart too; the
    // steps are rebuilt in order (lone left instructions as they come, lone right ones before
    // the next pair).
    for (size_t p = 0; p < plan.steps.size(); ++p) {
      std::vector<AlignStep> out;
      size_t nextL = 0, nextR = 0;
      for (const AlignStep& s : plan.steps[p]) {
        if (s.isPair() && pairSelects(*plan.lbody[p][s.left], *plan.rbody[p][s.right], Naming::Decided)) {
          for (; nextL < size_t(s.left); ++nextL) out.push_back({int(nextL), -1});
          for (; nextR < size_t(s.right); ++nextR) out.push_back({-1, int(nextR)});
          out.push_back(s);
          nextL = size_t(s.left) + 1;
          nextR = size_t(s.right) + 1;
        }
      }
      for (; nextL < plan.lbody[p].size(); ++nextL) out.push_back({int(nextL), -1});
      for (; nextR < plan.rbody[p].size(); ++nextR) out.push_back({-1, int(nextR)});
      plan.steps[p] = std::move(out);
    }
  }

  // How often each block of a side runs per warp that enters the side. With a profile (`counts`
  // of H's branch; `enter` the share of H's executions that enter the side), a block whose
  // conditional branch the profile counted runs as often as that branch; a block that only falls
  // into a counted block entered from it alone, as often as that block; any other block as
  // often as its side's predecessors earlier in reverse post-order lead to it. Without a
  // profile a block on a cycle inside the side runs loop-weight times, any other once.
  std::unordered_map<const BasicBlock*, double> sideRuns(const MeldRegion& r, const std::unordered_set<const BasicBlock*>& side,
                                                         const BasicBlock* first, const CfgInfo& cfg,
                                                         const BranchCounts* counts, double enter) const {
    std::vector<const BasicBlock*> order(side.begin(), side.end());
    std::sort(order.begin(), order.end(), [&](const BasicBlock* x, const BasicBlock* y) { return cfg.index(x) < cfg.index(y); });
    std::unordered_map<const BasicBlock*, double> runs;
    if (!counts || counts->executions() == 0 || enter <= 0) {
      for (const BasicBlock* x : order) runs[x] = onCycle(x, side) ? loopWeight_ : 1.0;
      return runs;
    }
    const double entries = double(counts->executions()) * enter;
    auto countsOf = [&](const BasicBlock* x) -> const BranchCounts* {
      const Instruction* b = conditionalBranch(*const_cast<BasicBlock*>(x));
      const BranchCounts* c = b ? usableCounts(*ctx_, *b) : nullptr;
      return c && c->executions() ? c : nullptr;
    };
    for (const BasicBlock* x : order)
      if (const BranchCounts* c = countsOf(x)) runs[x] = double(c->executions()) / entries;
    for (const BasicBlock* x : order) {
      if (runs.count(x)) continue;
      if (x->succs().size() == 1) {
        const BasicBlock* y = x->succs()[0].to;
        if (y != r.join && side.count(y) && runs.count(y) && countsOf(y) && y->preds().size() == 1) {
          runs[x] = runs[y];
          continue;
        }
      }
      double n = x == first ? 1.0 : 0.0;
      for (const BasicBlock* q : x->preds()) {
        auto it = runs.find(q);
        if (!side.count(q) || it == runs.end() || cfg.index(q) >= cfg.index(x)) continue;
        double share = 1;
        if (q->succs().size() == 2) {
          const BranchCounts* c = countsOf(q);
          const BranchOdds o = c ? BranchOdds::fromCounts(*c) : BranchOdds{};
          share = q->successor(EdgeKind::Taken) == x ? o.taken : o.fall;
        }
        n += it->second * share;
      }
      runs[x] = n;
    }
    return runs;
  }

  // Whether `x` reaches itself through blocks of its side.
  static bool onCycle(const BasicBlock* x, const std::unordered_set<const BasicBlock*>& side) {
    std::vector<const BasicBlock*> work{x};
    std::unordered_set<const BasicBlock*> seen;
    while (!work.empty()) {
      const BasicBlock* y = work.back();
      work.pop_back();
      for (const Edge& e : y->succs()) {
        if (e.to == x) return true;
        if (side.count(e.to) && seen.insert(e.to).second) work.push_back(e.to);
      }
    }
    return false;
  }

  // The two sides' costs per warp that enters each, and what each melded block issues.
  void cost(const MeldRegion& r, Plan& plan) {
    std::set<std::string> hoisted;
    std::vector<std::string> keys;
    for (size_t p = 0; p < plan.steps.size(); ++p) {
      const double lr = plan.lruns[p], rr = plan.rruns[p];
      double left = 0, right = 0, melded = 0;
      for (Instruction* i : plan.lbody[p]) left += weight(*i);
      for (Instruction* i : plan.rbody[p]) right += weight(*i);
      std::vector<MovedBase> made;  // the chosen bases the block holds so far (emit: baseCache_)
      for (const AlignStep& s : plan.steps[p]) {
        const bool fromLeft = s.left >= 0;
        const Instruction& i = fromLeft ? *plan.lbody[p][s.left] : *plan.rbody[p][s.right];
        if (s.isPair()) {
          keys.clear();
          Selects sel = *pairSelects(i, *plan.rbody[p][s.right], Naming::Decided, &keys);
          hoisted.insert(keys.begin(), keys.end());
          for (const MovedBase& m : std::span(sel.bases.data(), sel.numBases)) {
            if (std::any_of(made.begin(), made.end(), [&](const MovedBase& x) { return sameBase(x, m); }))
              sel.body -= m.count;
            else
              made.push_back(m);
          }
          melded += weight(i) + sel.body;
          plan.matched += weight(i) * plan.meldedRuns(p);
          plan.selects += unsigned(sel.body);
          ++plan.pairs;
        } else {
          // A lone instruction runs under its side's guard; where it writes a register, ptxas
          // keeps the other lanes' value with a SEL (measured on the SASS of melded diamonds).
          melded += weight(i) + (i.numDefOperands() ? kGuardedWriteCost : 0);
        }
        i.forEachDefReg([&](RegId d) { forgetBases(made, fromLeft ? d : renamed(d)); });
      }
      plan.total += plan.meldedRuns(p) * (left + right);
      // The branches: one each side, one melded (a condition select where they differ); a
      // one-sided block's branch tests its side's condition and %pm.
      const auto& pr = r.pairs[p];
      const Instruction* bl = pr.l ? conditionalBranch(*pr.l) : nullptr;
      const Instruction* brr = pr.r ? conditionalBranch(*pr.r) : nullptr;
      if (bl && brr) {
        left += 1, right += 1, melded += 1;
        if (!sameCondition(pr)) melded += 1;
      } else if (bl || brr) {
        (bl ? left : right) += 1;
        melded += 2;
      }
      plan.leftCost += lr * left;
      plan.rightCost += rr * right;
      plan.meldedBlock.push_back(melded);
    }
    for (const auto& [rr, rl] : rename_)
      if (entryCopy(rr)) ++plan.entryCopies;
    plan.hoisted += plan.entryCopies;
    plan.hoisted += double(hoisted.size());
    plan.selects += unsigned(hoisted.size());
  }

  static bool sameBase(const MovedBase& x, const MovedBase& y) {
    return x.left == y.left && x.right == y.right && x.diff == y.diff;
  }
  // A chosen base is stale once either of its bases is written.
  static void forgetBases(std::vector<MovedBase>& bases, RegId written) {
    std::erase_if(bases, [&](const MovedBase& m) { return m.left == written || m.right == written; });
  }

  // Whether ptxas would if-convert the whole region itself (each side, branches included, within
  // its side limit): the branch then costs both sides on every execution and nothing more.
  bool ptxasPredicates(const MeldRegion& r, const Plan& plan) const {
    size_t left = 0, right = 0;
    for (size_t p = 0; p < r.pairs.size(); ++p) {
      left += plan.lbody[p].size() + (r.pairs[p].l && conditionalBranch(*r.pairs[p].l) ? 1 : 0);
      right += plan.rbody[p].size() + (r.pairs[p].r && conditionalBranch(*r.pairs[p].r) ? 1 : 0);
    }
    return ctx_->ptxas().predicatesItself(left, right);
  }

  // Whether the paired blocks' conditional branches test the same condition under the renaming
  // and the pairing of their targets. Asked before and after the right side is renamed (emit):
  // renamed() of a renamed register is itself, since a right register is renamed only to a left
  // one that the right side does not name (renamable).
  bool sameCondition(const MeldRegion::Pair& p) const {
    const Instruction *a = conditionalBranch(*p.l), *b = conditionalBranch(*p.r);
    return a->guard() == renamed(b->guard()) && (a->guardNegated() != b->guardNegated()) == p.swapped;
  }

  // ---- the rewrite ----------------------------------------------------------------------

  void emit(MeldRegion& r, Plan& plan) {
    Function& f = *f_;
    // The entry values the renaming moves (renamable), in H, in register order; taken before
    // the right side is renamed, while liveness still describes the original code.
    std::vector<std::pair<RegId, RegId>> copies;
    for (const auto& [rr, rl] : rename_)
      if (entryCopy(rr)) copies.push_back({rl, rr});
    std::sort(copies.begin(), copies.end());
    // The right side under its new names.
    for (const auto& p : r.pairs)
      for (Instruction* i : p.r ? p.r->insts() : std::vector<Instruction*>{}) {
        if (i->hasGuard()) i->setGuard(renamed(i->guard()), i->guardNegated());
        i->forEachLeaf([&](Operand& o) {
          if (o.isReg() || (o.kind == OperandKind::Address && o.addressBase() == AddressBase::Reg)) o.id = renamed(o.id);
        });
      }
    hoistedInsts_.clear();
    hoistedDefs_.clear();
    bodyDefs_.clear();
    selCache_.clear();
    // H keeps the side its lanes take in %pm: true for the taken (left) side.
    const RegId pm = f.addRegister(ScalarType::Pred, "%pm");
    Instruction* br = r.branch;
    Instruction* copy = buildInstruction(f, br->guardNegated() ? Opcode::Not : Opcode::Mov, ScalarType::Pred,
                                         {Operand::reg(pm), Operand::reg(br->guard())}, br);
    std::unordered_map<const BasicBlock*, BasicBlock*> meldedLeft, meldedRight, passing;
    std::vector<BasicBlock*> newBlocks;
    for (const auto& p : r.pairs) {
      BasicBlock* m = f.createBlock();
      f.addLabel(m, "$Lmeld");
      if (p.l) meldedLeft[p.l] = m;
      if (p.r) meldedRight[p.r] = m;
      if (p.passTo) passing[p.l ? p.l : p.r] = m;
      newBlocks.push_back(m);
    }
    if (!r.join->hasLabel()) f.addLabel(r.join, "$Lmeld");
    // Where an edge of the melded code goes, from the two sides' successors (one of them null
    // in a one-sided block): into the one-sided block that one of them is, or their pair's block.
    auto target = [&](BasicBlock* ls, BasicBlock* rs) -> BasicBlock* {
      auto fw = [&](BasicBlock* x) {
        auto it = x ? forward_.find(x) : forward_.end();
        return it == forward_.end() ? x : it->second;
      };
      ls = fw(ls), rs = fw(rs);
      for (BasicBlock* x : {ls, rs})
        if (auto it = x ? passing.find(x) : passing.end(); it != passing.end()) return it->second;
      if (ls == r.join || rs == r.join) return r.join;
      return ls ? meldedLeft.at(ls) : meldedRight.at(rs);
    };
    // A pair's successor of `kind` on each side (the right one crosswise in a swapped pair).
    auto successors = [&](const MeldRegion::Pair& pr, EdgeKind kind) {
      const EdgeKind other = kind == EdgeKind::Taken ? EdgeKind::FallThrough : EdgeKind::Taken;
      return std::pair{pr.l ? pr.l->successor(kind) : nullptr, pr.r ? pr.r->successor(pr.swapped ? other : kind) : nullptr};
    };

    std::vector<BasicBlock*> layout;  // the melded blocks and the jumps between them
    for (size_t p = 0; p < r.pairs.size(); ++p) {
      const auto& pr = r.pairs[p];
      BasicBlock* m = newBlocks[p];
      std::vector<Instruction*> out;
      ConjunctionCache<RegId> onLeft, onRight;
      baseCache_.clear();
      auto put = [&](Instruction* i) {
        onLeft.after(*i);
        onRight.after(*i);
        i->forEachDefReg([&](RegId d) { std::erase_if(baseCache_, [&](const ChosenBase& c) { return c.base.left == d || c.base.right == d; }); });
        out.push_back(i);
      };
      auto lone = [&](Instruction* i, bool left) {
        if (i->hasGuard()) {
          RegId t = (left ? onLeft : onRight).get(i->guard(), i->guardNegated(), [&] {
            RegId c = f.addRegister(ScalarType::Pred, "%pm");
            put(buildPredLogic(f, Opcode::And, c, pm, !left, i->guard(), i->guardNegated(), i));
            return c;
          });
          i->setGuard(t, false);
        } else {
          i->setGuard(pm, !left);
        }
        put(i);
      };
      for (BasicBlock* x : {pr.l, pr.r})
        for (Instruction* i : x ? x->insts() : std::vector<Instruction*>{})
          if (i->is(Opcode::Pragma) &&
              std::none_of(out.begin(), out.end(), [&](const Instruction* o) { return o->sameOperation(*i); }))
            out.push_back(i);
      for (const AlignStep& s : plan.steps[p]) {
        if (!s.isPair()) {
          lone(s.left >= 0 ? plan.lbody[p][s.left] : plan.rbody[p][s.right], s.left >= 0);
          continue;
        }
        Instruction* a = plan.lbody[p][s.left];
        Instruction* b = plan.rbody[p][s.right];
        if (pairSelects(*a, *b, Naming::Decided)->swapped) {  // b is dropped after the pair
          const uint32_t d = b->numDefOperands();
          Operand first = b->operand(d);
          b->setOperand(d, b->operand(d + 1));
          b->setOperand(d + 1, first);
        }
        chooseOperands(*a, *b, pm, put);
        put(a);
      }
      // The branch: the lane's side's condition.
      const Instruction* bl = pr.l ? conditionalBranch(*pr.l) : nullptr;
      const Instruction* brr = pr.r ? conditionalBranch(*pr.r) : nullptr;
      if (bl || brr) {
        const Instruction* own = bl ? bl : brr;
        auto [lt, rt] = successors(pr, EdgeKind::Taken);
        auto [lf, rf] = successors(pr, EdgeKind::FallThrough);
        RegId g = own->guard();
        bool neg = own->guardNegated();
        if (bl && brr && !sameCondition(pr)) {
          g = selectPredicate(pm, bl->guard(), bl->guardNegated(), brr->guard(), brr->guardNegated() != pr.swapped, bl, put);
          neg = false;
        } else if (!(bl && brr)) {
          // A one-sided block: the other side's lanes go on to passTo's pair, by the edge
          // whose successor is in step with passTo (taken: `other | c`, fallen through: `own & c`).
          const bool leftOwns = bl != nullptr;
          (leftOwns ? (pr.throughTaken ? rt : rf) : (pr.throughTaken ? lt : lf)) = pr.passTo;
          RegId q = f.addRegister(ScalarType::Pred, "%pm");
          // %pm is true for the left side's lanes.
          put(buildPredLogic(f, pr.throughTaken ? Opcode::Or : Opcode::And, q, pm, pr.throughTaken == leftOwns, g, neg, own));
          g = q;
          neg = false;
        }
        put(buildBra(f, target(lt, rt)->label(), g, neg, own));
        for (Instruction* i : out) m->append(i);
        layout.push_back(m);
        // The other target by falling through: into the next melded block, or into a block that
        // jumps there.
        BasicBlock* fall = target(lf, rf);
        if (p + 1 == r.pairs.size() || fall != newBlocks[p + 1]) {
          BasicBlock* t = f.createBlock();
          t->append(buildBra(f, fall->label(), kNoReg, false, own));
          layout.push_back(t);
        }
        continue;
      }
      BasicBlock* to = target(pr.l ? pr.l->succs()[0].to : nullptr, pr.r ? pr.r->succs()[0].to : nullptr);
      const Instruction* term = pr.l && pr.l->terminator() ? pr.l->terminator() : pr.r && pr.r->terminator() ? pr.r->terminator() : br;
      if (p + 1 == r.pairs.size() || to != newBlocks[p + 1])
        put(buildBra(f, to->label(), kNoReg, false, term));
      for (Instruction* i : out) m->append(i);
      layout.push_back(m);
    }

    // The layout: H jumps to the first melded block; the sides leave it.
    auto& hv = r.header->insts();
    hv.pop_back();
    for (auto [rl, rr] : copies) {
      Instruction* mov = buildInstruction(f, Opcode::Mov, copyType(f.reg(rl).type), {Operand::reg(rl), Operand::reg(rr)}, br);
      mov->setParent(r.header);
      hv.push_back(mov);
    }
    copy->setParent(r.header);
    hv.push_back(copy);
    for (Instruction* i : hoistedInsts_) {
      i->setParent(r.header);
      hv.push_back(i);
    }
    Instruction* jump = buildBra(f, target(r.left, r.right)->label(), kNoReg, false, br);
    jump->setParent(r.header);
    hv.push_back(jump);
    for (const auto& p : r.pairs)
      for (BasicBlock* x : {p.l, p.r})
        if (x) x->insts().clear();
    auto& blocks = f.blocks();
    blocks.erase(std::remove_if(blocks.begin(), blocks.end(),
                                [&](BasicBlock* x) { return r.leftBlocks.count(x) || r.rightBlocks.count(x); }),
                 blocks.end());
    auto at = std::find(blocks.begin(), blocks.end(), r.header) + 1;
    blocks.insert(at, layout.begin(), layout.end());
  }

  // (pm & [!]a) | (!pm & [!]b) in a new predicate.
  template <class Put>
  RegId selectPredicate(RegId pm, RegId a, bool na, RegId b, bool nb, const Instruction* at, Put&& put) {
    RegId t1 = f_->addRegister(ScalarType::Pred, "%pm");
    RegId t2 = f_->addRegister(ScalarType::Pred, "%pm");
    RegId t = f_->addRegister(ScalarType::Pred, "%pm");
    put(buildPredLogic(*f_, Opcode::And, t1, pm, false, a, na, at));
    put(buildPredLogic(*f_, Opcode::And, t2, pm, true, b, nb, at));
    put(buildPredLogic(*f_, Opcode::Or, t, t1, false, t2, false, at));
    return t;
  }

  // Whether a leaf has one value in the whole region at the rewrite: an immediate, a register
  // that H's selects write, or one neither side nor a melded block's select writes.
  bool invariantNow(const Operand& o) const {
    if (readsRegister(o) && hoistedDefs_.count(o.id)) return true;
    return invariant(o) && !(readsRegister(o) && bodyDefs_.count(o.id));
  }

  // An instruction choosing operands: to H when everything it reads is invariant (H dominates
  // the region and nothing in it writes what it reads), else through `put` before the pair.
  template <class Put>
  void place(Instruction* i, Put&& put) {
    bool inv = !i->hasGuard() || invariantNow(Operand::reg(i->guard()));
    for (uint32_t k = i->numDefOperands(); k < i->numOperands() && inv; ++k)
      i->visitLeaves(i->operand(k), [&](const Operand& o) {
        if (o.isReg() || o.kind == OperandKind::Address) inv = inv && invariantNow(o);
      });
    auto& defs = inv ? hoistedDefs_ : bodyDefs_;
    for (uint32_t k = 0; k < i->numDefOperands(); ++k)
      i->visitLeaves(i->operand(k), [&](const Operand& o) {
        if (o.isReg()) defs.insert(o.id);
      });
    if (inv)
      hoistedInsts_.push_back(i);
    else
      put(i);
  }

  // A register holding `x` for the left side's lanes and `y` for the right's: one selp, in H
  // and shared when both are invariant.
  template <class Put>
  RegId selectOf(ScalarType t, const Operand& x, const Operand& y, RegId pm, const Instruction* at, Put&& put) {
    const bool inv = invariantNow(x) && invariantNow(y);
    if (inv)
      for (const CachedSelect& c : selCache_)
        if (c.type == t && c.x == x && c.y == y) return c.reg;
    const ScalarType regType = x.isReg() ? f_->reg(x.id).type : y.isReg() ? f_->reg(y.id).type : t;
    RegId d = f_->addRegister(regType, "%md");
    place(buildInstruction(*f_, Opcode::Selp, t, {Operand::reg(d), x, y, Operand::reg(pm)}, at), put);
    if (inv) selCache_.push_back({t, x, y, d});
    return d;
  }

  // Rewrites the read operands of `a` that differ from `b`'s into registers a selp on %pm
  // fills (emitted through `put` before `a`, or in H: place()).
  template <class Put>
  void chooseOperands(Instruction& a, const Instruction& b, RegId pm, Put&& put) {
    auto placing = [&](Instruction* i) { place(i, put); };
    const OperandShape* shape = selectShape(a);
    const unsigned defs = a.numDefOperands();
    for (uint32_t k = defs; k < a.numOperands(); ++k) {
      const OperandSpec* spec = specAt(shape, k);
      ScalarType specType = spec ? resolveType(spec->type, a) : ScalarType::None;
      std::vector<Operand*> la;
      std::vector<const Operand*> lb;
      a.visitLeaves(a.operand(k), [&](Operand& o) { la.push_back(&o); });
      b.visitLeaves(b.operand(k), [&](const Operand& o) { lb.push_back(&o); });
      for (size_t e = 0; e < la.size(); ++e) {
        Operand& x = *la[e];
        const Operand& y = *lb[e];
        if (x == y) continue;
        if (x.kind == OperandKind::Address) {  // a register base (leafSelects pairs no other unequal ones)
          Operand ra = Operand::reg(x.id), rb = Operand::reg(y.id);
          const ScalarType t = selectType(*f_, ra, rb, ScalarType::None);
          const ScalarType addType = t == ScalarType::B64 ? ScalarType::S64 : ScalarType::S32;
          const ScalarType regType = t == ScalarType::B64 ? ScalarType::B64 : ScalarType::B32;
          // The offsets differ, or the bases: one base per block for every address on the same
          // two bases at the same distance (an unrolled loop's loads [a-256], [a-128] against
          // [b], [b+128]), which is the address the first of them reads on each side (every
          // value it holds is one the input computed: a base moved by the offsets' difference
          // could leave the address space, [a-8] at a = 0 in shared memory); the others read it
          // at their distance from the first.
          const MovedBase key{x.id, y.id, x.value - y.value, 0};
          auto cached = std::find_if(baseCache_.begin(), baseCache_.end(), [&](const auto& c) { return sameBase(c.base, key); });
          if (cached == baseCache_.end()) {
            RegId d;
            if (x.value == y.value) {  // other bases at one offset
              d = selectOf(t, ra, rb, pm, &a, put);
            } else if (x.id == y.id) {  // one base: moved by a select of the two offsets
              RegId offset = selectOf(t, Operand::imm(x.value), Operand::imm(y.value), pm, &a, put);
              d = f_->addRegister(regType, "%md");
              place(buildInstruction(*f_, Opcode::Add, addType, {Operand::reg(d), ra, Operand::reg(offset)}, &a), put);
            } else {  // each base moved by its offset, then the select
              for (auto [base, offset] : {std::pair{&ra, x.value}, std::pair{&rb, y.value}}) {
                if (offset == 0) continue;
                RegId moved = f_->addRegister(regType, "%md");
                place(buildInstruction(*f_, Opcode::Add, addType, {Operand::reg(moved), *base, Operand::imm(offset)}, &a), put);
                *base = Operand::reg(moved);
              }
              d = selectOf(t, ra, rb, pm, &a, put);
            }
            baseCache_.push_back({key, d, x.value == y.value ? 0 : x.value});
            cached = baseCache_.end() - 1;
          }
          x.id = cached->reg;
          x.value -= cached->leftOffset;
          continue;
        }
        ScalarType t = selectType(*f_, x, y, specType);
        if (t == ScalarType::Pred) {
          x = Operand::reg(selectPredicate(pm, x.id, x.negated(), y.id, y.negated(), &a, placing));
          continue;
        }
        x = Operand::reg(selectOf(t, x, y, pm, &a, put));
      }
    }
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  const MeldRegion* region_ = nullptr;
  const Liveness* lv_ = nullptr;
  const DefinitionSites* defs_ = nullptr;
  std::unordered_map<RegId, RegId> rename_;  // right register -> left name
  std::unordered_map<RegId, RegId> leftOf_;  // left name -> the right register renamed to it
  std::unordered_set<RegId> written_;        // registers either side writes (names before renaming)
  // The rewrite's instructions for H, the registers they write, those melded blocks' selects
  // write, and H's selects by what they choose between.
  struct CachedSelect {
    ScalarType type;
    Operand x, y;
    RegId reg;
  };
  std::vector<Instruction*> hoistedInsts_;
  std::unordered_set<RegId> hoistedDefs_, bodyDefs_;
  std::vector<CachedSelect> selCache_;
  // The chosen bases of the block being written: the register, and the left offset it stands for.
  struct ChosenBase {
    MovedBase base;
    RegId reg;
    int64_t leftOffset;
  };
  std::vector<ChosenBase> baseCache_;
  std::unordered_map<const BasicBlock*, BasicBlock*> forward_;  // a side block that only jumps on -> where to
  std::unordered_set<std::string_view> pinned_;
  std::unordered_set<const Instruction*> tried_;
  double minSimilarity_ = 0.3, longLatencyWeight_ = 8, memoryWeight_ = 1, prior_ = 0.5, uniformLoss_ = 1.02, loopWeight_ = 4;
  int64_t maxBlocks_ = 16, maxInsts_ = 256;
};

}  // namespace

PassInfo meldPassInfo() {
  PassInfo info{"meld",
                "the two sides of a divergent branch that have the same shape become one: paired instructions run once "
                "with selp-chosen operands, the rest under the side's guard (control-flow melding, DARM)",
                "- (DARM, CGO 2022; issue #35)",
                {
                    {"min-similarity", KnobType::Float, "0.3", "least share of the two sides' weight that pairs (0 to 0.5, DARM's measure)"},
                    {"uniform-loss", KnobType::Float, "1.02", "without a profile: most the melded code may cost against the dearer side alone (a warp that does not split)"},
                    {"max-blocks", KnobType::Int, "16", "most blocks in one side"},
                    {"max-insts", KnobType::Int, "256", "most instructions in one block (the alignment is quadratic)"},
                    {"long-latency-weight", KnobType::Int, "8", "instructions a div, rem, sqrt or transcendental counts as"},
                    {"memory-weight", KnobType::Int, "1", "instructions a load or store (not of .param or .const) counts as"},
                    {"divergence-prior", KnobType::Float, "0.5", "without a profile: the share of a divergent branch's executions in which it splits"},
                    {"loop-weight", KnobType::Float, "4", "without a profile: how often a block on a cycle inside a side runs per entry (a profile counts it)"},
                },
                [] { return std::make_unique<Meld>(); }};
  info.skipsScopedFunctions = true;
  return info;
}

}  // namespace ptxopt
