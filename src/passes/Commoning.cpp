// commoning: the same instruction on both ways of a branch becomes one (issue #11;
// docs/passes/commoning.md).
//
// Two parts:
//  * Diamonds (IfRegion.h, both sides non-empty): while the first instructions of both sides
//    are the same operation on the same operands, the one on each side goes and one copy goes
//    into the header, just before the branch (hoisting); while the last instructions (before a
//    side's own jump) are the same, one copy goes to the top of the merge block when the merge
//    has no other predecessor (tail merging). Every lane runs exactly one side, so it runs the
//    instruction once at the same point of its own instruction stream either way: loads, stores
//    and atomics move too. Hoisting stops at an instruction that writes a register the branch
//    reads.
//  * Guard pairs (after predication): `@%p X` and, later in the same block, `@!%p X` become one
//    unguarded X at the first place, when nothing in between writes %p or what X reads or writes,
//    reads what X writes, and (when X touches memory or has other effects) touches memory or
//    has effects.
//
// Never moved or merged: barriers, warp collectives and anything convergent (which lanes run
// them together is the point), calls, opaque instructions, terminators, declarations and scope
// braces.
#include <algorithm>
#include <unordered_set>

#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"

#include "IfRegion.h"

namespace ptxopt {

namespace {

bool movable(const Instruction& i) {
  const OpcodeInfo& info = i.info();
  return !info.isPseudo() && !info.isOpaque() && !info.isTerminator() &&
         !info.is(OpFlag::CtaBarrier | OpFlag::WarpCollective | OpFlag::Convergent | OpFlag::Call);
}

bool touchesMemory(const Instruction& i) {
  return i.info().readsMemory() || i.info().writesMemory() || i.hasSideEffects();
}

template <typename Set>
bool writesAny(const Instruction& i, const Set& regs) {
  bool hit = false;
  i.forEachDefReg([&](RegId r) { hit |= regs.count(r) != 0; });
  return hit;
}
template <typename Set>
bool readsAny(const Instruction& i, const Set& regs) {
  bool hit = false;
  i.forEachUseReg([&](RegId r) { hit |= regs.count(r) != 0; });
  return hit;
}

class Commoning : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager&, PassContext& ctx) override {
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    window_ = k.getInt("window");
    bool changed = false;
    if (k.getBool("hoist-sink")) {
      for (BasicBlock* h : std::vector<BasicBlock*>(f.blocks())) {
        std::optional<IfRegion> r = findIfRegion(f, h, k.getInt("max-chain"));
        if (!r || r->taken.empty() || r->fall.empty()) continue;
        changed |= hoist(*r);
        changed |= sink(*r);
      }
    }
    if (k.getBool("guard-pairs"))
      for (BasicBlock* b : f.blocks()) changed |= guardPairs(*b);
    // Instructions moved between blocks and removed; the CFG's edges are unchanged.
    return changed ? PassResult::changed(PreservedAnalyses::cfg()) : PassResult::unchanged();
  }

 private:
  // The first instruction of `b` when it is not the block's own jump and nothing precedes it.
  static Instruction* first(BasicBlock* b) {
    if (b->insts().empty()) return nullptr;
    Instruction* i = b->insts().front();
    return isChainJump(*b, *i) ? nullptr : i;
  }
  // The last instruction of `b` before its own jump, if any.
  static Instruction* last(BasicBlock* b) {
    auto& v = b->insts();
    if (v.empty()) return nullptr;
    size_t k = v.size();
    if (isChainJump(*b, *v.back())) --k;
    return k == 0 ? nullptr : v[k - 1];
  }
  static bool sameGuard(const Instruction& a, const Instruction& b) {
    return a.hasGuard() == b.hasGuard() && (!a.hasGuard() || (a.guard() == b.guard() && a.guardNegated() == b.guardNegated()));
  }

  bool hoist(const IfRegion& r) {
    bool changed = false;
    std::unordered_set<RegId> branchReads;
    r.branch->forEachUseReg([&](RegId x) { branchReads.insert(x); });
    for (;;) {
      Instruction *a = first(r.taken.front()), *b = first(r.fall.front());
      if (!a || !b || !movable(*a) || !a->sameOperation(*b) || !sameGuard(*a, *b) || writesAny(*a, branchReads)) break;
      r.taken.front()->insts().erase(r.taken.front()->insts().begin());
      r.fall.front()->insts().erase(r.fall.front()->insts().begin());
      auto& hv = r.header->insts();
      hv.insert(hv.end() - 1, a);
      a->setParent(r.header);
      ctx_->count("hoisted");
      ctx_->remark(r.header, "hoist", std::string(a->info().name) + " (lines " + std::to_string(a->loc().line) + " and " +
                                          std::to_string(b->loc().line) + ") into the header of the " + r.shape +
                                          " at line " + std::to_string(r.branch->loc().line),
                   {{"line", double(r.branch->loc().line)}});
      changed = true;
    }
    return changed;
  }

  bool sink(const IfRegion& r) {
    if (r.merge->preds().size() != 2) return false;
    bool changed = false;
    for (;;) {
      BasicBlock *ta = r.taken.back(), *fa = r.fall.back();
      Instruction *a = last(ta), *b = last(fa);
      if (!a || !b || !movable(*a) || !a->sameOperation(*b) || !sameGuard(*a, *b)) break;
      auto drop = [](BasicBlock* blk, Instruction* i) {
        auto& v = blk->insts();
        v.erase(std::find(v.begin(), v.end(), i));
      };
      drop(ta, a);
      drop(fa, b);
      auto& mv = r.merge->insts();
      mv.insert(mv.begin(), a);
      a->setParent(r.merge);
      ctx_->count("sunk");
      ctx_->remark(r.merge, "sink", std::string(a->info().name) + " (lines " + std::to_string(a->loc().line) + " and " +
                                        std::to_string(b->loc().line) + ") into the merge of the " + r.shape +
                                        " at line " + std::to_string(r.branch->loc().line),
                   {{"line", double(r.branch->loc().line)}});
      changed = true;
    }
    return changed;
  }

  bool guardPairs(BasicBlock& b) {
    bool changed = false;
    auto& v = b.insts();
    for (size_t i = 0; i < v.size(); ++i) {
      Instruction* x = v[i];
      if (!x->hasGuard() || !movable(*x)) continue;
      std::unordered_set<RegId> reads, writes;
      x->forEachUseReg([&](RegId r) { reads.insert(r); });
      x->forEachDefReg([&](RegId r) { writes.insert(r); });
      if (writes.count(x->guard())) continue;
      bool mem = touchesMemory(*x);
      size_t end = std::min(v.size(), i + 1 + size_t(window_));
      for (size_t j = i + 1; j < end; ++j) {
        Instruction* y = v[j];
        if (y->hasGuard() && y->guard() == x->guard() && y->guardNegated() != x->guardNegated() && y->sameOperation(*x)) {
          // X now runs for every lane at i.
          x->setGuard(kNoReg, false);
          v.erase(v.begin() + j);
          ctx_->count("guard-pairs");
          ctx_->remark(&b, "merge", std::string(x->info().name) + " guarded both ways (lines " +
                                        std::to_string(x->loc().line) + " and " + std::to_string(y->loc().line) +
                                        ") becomes one unguarded instruction",
                       {{"line", double(x->loc().line)}});
          changed = true;
          break;
        }
        // Y is no match, so it lies between X and any later match, whose lanes (the opposite
        // guard) would run X at i instead: Y may not write what X reads, read or write what X
        // writes, or write the guard. A pseudo-instruction ends the search, and so, when X
        // touches memory, does an instruction that touches memory or may not move.
        if (y->info().isPseudo() || writesAny(*y, reads) || writesAny(*y, writes) || readsAny(*y, writes)) break;
        bool guardWritten = false;
        y->forEachDefReg([&](RegId r) { guardWritten |= r == x->guard(); });
        if (guardWritten) break;
        if (mem && (touchesMemory(*y) || !movable(*y))) break;
      }
    }
    return changed;
  }

  PassContext* ctx_ = nullptr;
  int64_t window_ = 32;
};

}  // namespace

PassInfo commoningPassInfo() {
  return {"commoning",
          "the same instruction on both ways of a branch becomes one: hoisted into a diamond's header, sunk into its merge, or "
          "`@%p X` and `@!%p X` merged into an unguarded X",
          "000, OriDoPredication (if-conversion): what follows it",
          {
              {"hoist-sink", KnobType::Bool, "true", "hoist and sink the instructions both sides of a diamond start or end with"},
              {"guard-pairs", KnobType::Bool, "true", "merge `@%p X` and `@!%p X` in one block into an unguarded X"},
              {"window", KnobType::Int, "32", "instructions searched after `@%p X` for its `@!%p X`"},
              {"max-chain", KnobType::Int, "4", "most blocks in one side of a diamond"},
          },
          [] { return std::make_unique<Commoning>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/false,
          /*skipsScopedFunctions=*/true};
}

}  // namespace ptxopt
