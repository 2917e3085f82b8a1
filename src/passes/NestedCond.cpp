// nested-cond: two conditional branches to the same place become one (issue #12, seed 003
// OptimizeNestedCondBranches; docs/passes/nested-cond.md).
//
//   A: ...  @g1 bra T;                A: ...  (B's instructions)
//   B: ...  @g2 bra T;      becomes      or.pred %t, g1, g2;  @%t bra T;
//   C: ...                            C: ...
//
// where B is reached only from A (by falling through), g1 and g2 are guards with their senses
// (`@!%p` is a negated operand of or.pred). `if (a && b) S` compiles to A: `@!a bra END`,
// B: `@!b bra END`, S; both negated, the pass writes `and.pred %t, a, b; @!%t bra END` instead.
// `if (a || b) S` is A: `@a bra S`, B: `@b bra S`. Chains of more conditions collapse one level
// at a time, up to max-conditions.
//
// B's instructions now run for the lanes that used to leave at A, so they must be safe and
// cheap there: speculatable (the opcode table's flag: no memory, no effect, no fault), unguarded,
// at most max-middle of them (long-latency ones weighted), writing nothing that is live where
// T begins and not A's guard register.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"

#include "GuardedCode.h"

namespace ptxopt {

namespace {

class NestedCond : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    maxMiddle_ = k.getInt("max-middle");
    maxConditions_ = k.getInt("max-conditions");
    longLatencyWeight_ = k.getInt("long-latency-weight");
    conditions_.clear();
    refused_.clear();
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      const Liveness& lv = am.get<LivenessAnalysis>();
      pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
      for (size_t i = 0; i + 1 < f.blocks().size(); ++i) {
        if (tryMerge(i, lv)) {
          buildCfg(f);
          am.invalidate(PreservedAnalyses::none());
          changed = again = true;
          break;
        }
      }
    }
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  bool tryMerge(size_t ai, const Liveness& lv) {
    BasicBlock* a = f_->blocks()[ai];
    BasicBlock* b = f_->blocks()[ai + 1];
    Instruction* ba = conditionalBranch(*a);
    Instruction* bb = ba ? conditionalBranch(*b) : nullptr;
    if (!bb) return false;
    BasicBlock* t = a->successor(EdgeKind::Taken);
    if (a->successor(EdgeKind::FallThrough) != b || b->successor(EdgeKind::Taken) != t || t == b || t == a) return false;
    if (b->preds().size() != 1 || b == f_->entry()) return false;
    auto refuse = [&](const std::string& reason, const std::string& text) {
      if (refused_.insert(bb).second) {
        ctx_->count("refused-" + reason);
        ctx_->remark(a, "keep", "branches at lines " + std::to_string(ba->loc().line) + " and " +
                                    std::to_string(bb->loc().line) + " to one target: " + text,
                     {{"line", double(ba->loc().line)}});
      }
      return false;
    };
    if (b->hasLabel() && pinned_.count(f_->labelName(b->label())))
      return refuse("pinned", "a debug section or a branch table names " + b->name());
    unsigned conditions = conditionsOf(ba) + conditionsOf(bb);
    if (int64_t(conditions) > maxConditions_)
      return refuse("chain", std::to_string(conditions) + " conditions against max-conditions " + std::to_string(maxConditions_));
    // B's instructions move in front of A's branch.
    int64_t cost = 0;
    for (Instruction* i : b->insts()) {
      if (i == bb) continue;
      auto at = [&] { return " (line " + std::to_string(i->loc().line) + ")"; };  // for a refusal
      if (i->info().isPseudo() || !i->isSpeculatable() || i->hasGuard())
        return refuse("unspeculatable", "`" + std::string(i->info().name) + "` cannot run for the lanes that leave at the first branch" + at());
      bool bad = false;
      i->forEachDefReg([&](RegId r) { bad |= r == ba->guard() || lv.liveIn[t->id()].test(r); });
      if (bad) return refuse("live", "`" + std::string(i->info().name) + "` writes a register the first branch or the target reads" + at());
      cost += i->info().is(OpFlag::LongLatency) ? longLatencyWeight_ : 1;
    }
    if (cost > maxMiddle_)
      return refuse("cost", "a middle of " + std::to_string(cost) + " instructions against max-middle " + std::to_string(maxMiddle_));

    // The combined guard.
    RegId r = f_->addRegister(ScalarType::Pred, "%nc");
    bool both = ba->guardNegated() && bb->guardNegated();
    Instruction* comb = buildPredLogic(*f_, both ? Opcode::And : Opcode::Or, r, ba->guard(), !both && ba->guardNegated(),
                                       bb->guard(), !both && bb->guardNegated(), bb);
    Instruction* jump = buildInstruction(*f_, Opcode::Bra, ScalarType::None, {*braTarget(*ba)}, ba);
    if (ba->has(Mod::Uni) && bb->has(Mod::Uni)) jump->addMod(Mod::Uni);
    jump->setGuard(r, both);

    std::string what = std::string(both ? "and" : "or") + " of the branches at lines " + std::to_string(ba->loc().line) +
                       " and " + std::to_string(bb->loc().line) + " (" + std::to_string(cost) + " instructions speculated)";
    auto& av = a->insts();
    av.pop_back();  // A's branch
    for (Instruction* i : b->insts()) {
      if (i == bb) continue;
      i->setParent(a);
      av.push_back(i);
    }
    comb->setParent(a);
    jump->setParent(a);
    av.push_back(comb);
    av.push_back(jump);
    b->insts().clear();
    auto& blocks = f_->blocks();
    blocks.erase(std::find(blocks.begin(), blocks.end(), b));
    conditions_[jump] = conditions;
    ctx_->count("merged");
    ctx_->count(both ? "merged-and" : "merged-or");
    ctx_->count("speculated-instructions", uint64_t(cost));
    ctx_->remark(a, "merge", what, {{"line", double(ba->loc().line)}, {"speculated", double(cost)}});
    return true;
  }

  unsigned conditionsOf(const Instruction* branch) const {
    auto it = conditions_.find(branch);
    return it == conditions_.end() ? 1 : it->second;
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_map<const Instruction*, unsigned> conditions_;
  std::unordered_set<const Instruction*> refused_;
  int64_t maxMiddle_ = 4, maxConditions_ = 4, longLatencyWeight_ = 8;
};

}  // namespace

PassInfo nestedCondPassInfo() {
  return {"nested-cond",
          "two conditional branches to one target, the second reached only past the first, become one branch on and.pred / or.pred",
          "003, OptimizeNestedCondBranches (phase 38)",
          {
              {"max-middle", KnobType::Int, "4", "most instructions between the two branches (they now run for every lane that reaches the first)"},
              {"max-conditions", KnobType::Int, "4", "most conditions one combined branch may test"},
              {"long-latency-weight", KnobType::Int, "8", "instructions a div, rem, sqrt or transcendental of the middle counts as"},
          },
          [] { return std::make_unique<NestedCond>(); }};
}

}  // namespace ptxopt
