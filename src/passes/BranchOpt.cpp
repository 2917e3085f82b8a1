// branch-opt: branch simplification (seed 003, OriBranchOpt).
//
// One walk over the blocks in reverse post-order; each block is re-examined until no rewrite
// applies to it (the knob convergence-loop turns that inner loop off). The rewrites:
//   * a conditional branch, ret, exit or trap whose guard is a constant becomes unconditional
//     or disappears;
//   * a conditional branch to the next block (both ways lead there), and a brx.idx whose table
//     names one block only, lose their condition;
//   * a branch to a block that only branches on is threaded to the final target, through at
//     most max-thread-depth such blocks;
//   * an unconditional branch to the next block in layout is deleted.
// Then blocks no path from the entry reaches are deleted; their scope braces, declarations
// and tables move to the block before them, and a block whose label a debug section names
// keeps its (now empty) place. Deleting blocks can leave a branch to the next block; one more
// sweep folds those.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Semantics.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/ptx/Printer.h"

#include "GuardedCode.h"

namespace ptxopt {

namespace {

class BranchOpt : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    maxDepth_ = ctx.knobs().getInt("max-thread-depth");
    bool convergence = ctx.knobs().getBool("convergence-loop");
    am_ = &am;
    rd_ = nullptr;  // computed when a guarded terminator first needs it
    foldedPreds_.reset();
    tables_ = collectBranchTargetTables(f);
    computeLayout();
    computeScopes();
    threadDepthUsed_.assign(f.blockIdBound(), 0);
    rewritten_ = false;

    // RPO of the blocks as they are now (the walk does not revisit blocks it makes reachable
    // or unreachable; the seed's single pass, not a global fixed point). The pass owns the
    // function: the CFG analysis's blocks are its own.
    std::vector<BasicBlock*> rpo;
    for (const BasicBlock* b : am.get<CfgAnalysis>().rpo) rpo.push_back(const_cast<BasicBlock*>(b));
    bool changed = false;
    for (BasicBlock* b : rpo) {
      while (simplify(b)) {
        changed = true;
        if (!convergence) break;
      }
    }
    if (ctx.knobs().getBool("remove-unreachable") && removeUnreachable()) {
      changed = true;
      // Deleting blocks can make a branch's target the next block in layout.
      computeLayout();
      for (BasicBlock* b : f.blocks()) changed |= foldBranchToNext(b);
    }
    if (changed) buildCfg(f);
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  void computeLayout() {
    layoutIndex_.assign(f_->blockIdBound(), SIZE_MAX);
    for (size_t k = 0; k < f_->blocks().size(); ++k) layoutIndex_[f_->blocks()[k]->id()] = k;
  }

  // The scope in force at each block's terminator; labels must stay visible from a branch.
  void computeScopes() {
    scopeAtEnd_.assign(f_->blockIdBound(), 0);
    std::vector<uint32_t> stack{0};
    for (BasicBlock* b : f_->blocks()) {
      uint32_t atTerm = stack.back();
      for (Instruction* i : b->insts()) {
        if (i->is(Opcode::ScopeBegin)) stack.push_back(i->payload());
        else if (i->is(Opcode::ScopeEnd) && stack.size() > 1) stack.pop_back();
        else if (!i->info().isPseudo()) atTerm = stack.back();
      }
      scopeAtEnd_[b->id()] = atTerm;
    }
  }

  bool labelVisible(uint32_t label, uint32_t fromScope) const { return f_->scopeVisible(f_->labels()[label].scope, fromScope); }

  BasicBlock* layoutNext(const BasicBlock* b) const {
    size_t k = layoutIndex_[b->id()];
    return k + 1 < f_->blocks().size() ? f_->blocks()[k + 1] : nullptr;
  }

  void eraseInst(BasicBlock* b, Instruction* i) {
    auto& v = b->insts();
    v.erase(std::find(v.begin(), v.end(), i));
  }

  void edgesChanged(BasicBlock* b) {
    updateSuccessors(*f_, layoutIndex_[b->id()], tables_);
    rewritten_ = true;
  }

  // Whether `s` is a plain comparison (the shape with .and/.or/.xor combines a third predicate)
  // that folds to a constant: what constantPredicate looks for.
  static bool foldingSetp(const Instruction& s) {
    const OperandShape* shape = s.is(Opcode::Setp) ? selectShape(s) : nullptr;
    return shape && shape->when.empty() && s.cmp() && foldCompare(*s.cmp(), s.type(), s.operand(1), s.operand(2));
  }

  // The value of predicate `p` as `use` reads it, when a single constant comparison defines it.
  std::optional<bool> constantPredicate(const Instruction& use, RegId p, std::string& why) {
    // Reaching definitions only for a predicate some folding comparison writes (most functions
    // have none). The pass adds no comparisons, so the set gathered at its first use holds.
    if (!foldedPreds_) {
      foldedPreds_.emplace(f_->regs().size(), false);
      for (const BasicBlock* b : f_->blocks())
        for (const Instruction* i : b->insts())
          if (foldingSetp(*i)) i->forEachDefReg([&](RegId r) { (*foldedPreds_)[r] = true; });
    }
    if (p >= foldedPreds_->size() || !(*foldedPreds_)[p]) return std::nullopt;
    if (!rd_) rd_ = &am_->get<ReachingDefsAnalysis>();
    if (rd_->entryValueReaches(&use, p)) return std::nullopt;
    auto defs = rd_->reaching(&use, p);
    if (defs.size() != 1) return std::nullopt;
    const DefSite& d = rd_->defs()[defs[0]];
    if (!d.kills || !foldingSetp(*d.inst)) return std::nullopt;
    const Instruction& setp = *d.inst;
    std::optional<bool> v = foldCompare(*setp.cmp(), setp.type(), setp.operand(1), setp.operand(2));
    why = printInstruction(*f_, setp);
    const Operand& dst = setp.operand(0);
    if (dst.kind == OperandKind::Pair && setp.elements(dst)[1].isReg() && setp.elements(dst)[1].id == p) return !*v;
    return v;
  }

  bool simplify(BasicBlock* b) {
    Instruction* t = b->terminator();
    if (!t) return false;
    BasicBlock* next = layoutNext(b);

    // 1. A constant guard (on any terminator: bra, brx.idx, ret, exit, trap).
    if (t->hasGuard()) {
      std::string why;
      if (auto v = constantPredicate(*t, t->guard(), why)) {
        bool taken = *v != t->guardNegated();
        if (taken) {
          t->clearGuard();
          ctx_->count("constant-conditions");
          ctx_->remark(b, "constant-condition", "the guard is always true (" + why + "); the " +
                       std::string(t->info().name) + " becomes unconditional", {{"value", 1}});
        } else {
          ctx_->count("constant-conditions");
          ctx_->remark(b, "constant-condition", "the guard is always false (" + why + "); the " +
                       std::string(t->info().name) + " is deleted", {{"value", 0}});
          eraseInst(b, t);
        }
        edgesChanged(b);
        return true;
      }
    }

    if (t->is(Opcode::BrxIdx)) {
      // 2b. A table that names one block only.
      auto labels = branchTargetLabels(*t, tables_);
      if (!t->hasGuard() && !labels.empty() &&
          std::all_of(labels.begin(), labels.end(), [&](uint32_t l) { return f_->labelBlock(l) == f_->labelBlock(labels[0]); })) {
        Instruction* bra = buildBra(*f_, labels[0], kNoReg, false, t);
        bra->addMod(Mod::Uni);
        auto& v = b->insts();
        *std::find(v.begin(), v.end(), t) = bra;
        bra->setParent(b);
        ctx_->count("same-target");
        ctx_->remark(b, "same-target", "every entry of the brx.idx table names " + b->name() + "'s target " +
                     std::string(f_->labelName(labels[0])) + "; a bra replaces it", {{"entries", double(labels.size())}});
        edgesChanged(b);
        return true;
      }
      // 3b. Thread the table's entries.
      const Operand* tableName = operandWithRole(*t, OperandRole::Table);
      auto found = tableName ? tables_.find(tableName->id) : tables_.end();
      if (found != tables_.end()) {
        const Instruction* table = found->second;
        bool any = false;
        Instruction* mutableTable = const_cast<Instruction*>(table);  // the tables are kept const elsewhere
        for (uint32_t k = 0; k < mutableTable->numOperands(); ++k) {
          Operand& o = mutableTable->operand(k);
          if (!o.isLabel()) continue;
          uint32_t depth = 0;
          uint32_t final = follow(o.id, scopeAtEnd_[table->parent()->id()], depth, maxDepth_);
          if (final != o.id) {
            ctx_->count("threaded");
            ctx_->remark(b, "thread", "brx.idx entry " + std::to_string(k) + " goes through " + std::to_string(depth) +
                         " block(s) that only branch; it now names " + std::string(f_->labelName(final)),
                         {{"depth", double(depth)}});
            o.id = final;
            any = true;
          }
        }
        if (any) {
          buildCfg(*f_);
          rewritten_ = true;
          return true;
        }
      }
      return false;
    }

    Operand* target = braTarget(*t);
    if (!target) return false;
    BasicBlock* targetBlock = f_->labelBlock(target->id);

    // 2. Both ways lead to the next block.
    if (t->hasGuard() && targetBlock == next) {
      ctx_->count("same-target");
      ctx_->remark(b, "same-target", "the conditional branch and the fall-through both lead to " + next->name() +
                   "; the branch is deleted");
      eraseInst(b, t);
      edgesChanged(b);
      return true;
    }
    // 4. An unconditional branch to the next block.
    if (foldBranchToNext(b)) return true;
    // 3. Thread through blocks that only branch.
    uint32_t depth = 0;
    uint32_t& used = threadDepthUsed_[b->id()];
    uint32_t final = follow(target->id, scopeAtEnd_[b->id()], depth, maxDepth_ - used);
    if (final != target->id) {
      used += depth;
      ctx_->count("threaded");
      ctx_->remark(b, "thread", "the branch to " + std::string(f_->labelName(target->id)) + " goes through " +
                   std::to_string(depth) + " block(s) that only branch; it now targets " + std::string(f_->labelName(final)),
                   {{"depth", double(depth)}});
      target->id = final;
      edgesChanged(b);
      return true;
    }
    return false;
  }

  bool foldBranchToNext(BasicBlock* b) {
    Instruction* t = b->terminator();
    BasicBlock* next = layoutNext(b);
    if (!t || !next || t->hasGuard()) return false;
    const Operand* target = braTarget(*t);
    if (!target || f_->labelBlock(target->id) != next) return false;
    ctx_->count("branch-to-next");
    ctx_->remark(b, "fold-branch-to-next", "the branch goes to " + next->name() + ", the next block in layout");
    eraseInst(b, t);
    edgesChanged(b);
    return true;
  }

  // Is `b` a block that does nothing but pass control on? Returns the label it passes to.
  std::optional<uint32_t> trampolineTarget(const BasicBlock* b) const {
    const Instruction* only = nullptr;
    for (const Instruction* i : b->insts()) {
      if (i->info().isPseudo() || only) return std::nullopt;  // pseudo statements stay put
      only = i;
    }
    if (!only) {
      const BasicBlock* next = layoutNext(b);
      if (next && next->hasLabel()) return next->label();
      return std::nullopt;
    }
    const Operand* target = braTarget(*only);
    if (!target || only->hasGuard()) return std::nullopt;
    return target->id;
  }

  // Follows blocks that only branch, from `label`. `budget` is what is left of
  // max-thread-depth for the branch being threaded (re-examining a block does not renew it).
  // A chain that closes on itself (an infinite loop of such blocks) is not threaded into.
  uint32_t follow(uint32_t label, uint32_t fromScope, uint32_t& depth, int64_t budget) {
    uint32_t cur = label;
    std::unordered_set<uint32_t> seen{label};
    for (;;) {
      const BasicBlock* b = f_->labelBlock(cur);
      auto next = trampolineTarget(b);
      if (!next || !labelVisible(*next, fromScope)) return cur;
      if (seen.count(*next)) {
        depth = 0;
        return label;
      }
      if (static_cast<int64_t>(depth) >= budget) {
        ctx_->count("thread-depth-limit");
        ctx_->remark(b, "thread-depth-limit", "threading stopped at " + b->name() + " (max-thread-depth " +
                     std::to_string(maxDepth_) + ")", {{"depth", double(depth)}});
        return cur;
      }
      seen.insert(*next);
      cur = *next;
      ++depth;
    }
  }

  bool removeUnreachable() {
    // After a rewrite the analyses cached before it are stale: the CFG analysis is computed
    // again from the current edges. Without one, the cached results stay (and serve the next
    // pass if nothing is deleted here either).
    if (rewritten_) {
      buildCfg(*f_);
      am_->invalidate(PreservedAnalyses::none());
      rd_ = nullptr;
    }
    const CfgInfo& cfg = am_->get<CfgAnalysis>();
    // Labels that must survive: named by a debug section or by a .branchtargets table.
    std::unordered_set<std::string_view> pinned = pinnedLabelNames(*f_, tables_);

    bool changed = false;
    std::vector<BasicBlock*> kept;
    for (BasicBlock* b : f_->blocks()) {
      if (cfg.reachable(b)) {
        kept.push_back(b);
        continue;
      }
      size_t real = 0;
      for (Instruction* i : b->insts()) real += !i->info().isPseudo();
      bool isPinned = b->hasLabel() && pinned.count(f_->labelName(b->label()));
      if (isPinned) {
        if (real) {
          auto& v = b->insts();
          v.erase(std::remove_if(v.begin(), v.end(), [](Instruction* i) { return !i->info().isPseudo(); }), v.end());
          ctx_->count("unreachable-instructions", real);
          ctx_->remark(b, "keep-unreachable-label", "no path from the entry reaches " + b->name() +
                       "; its instructions go but its label stays, a debug section names it", {{"instructions", double(real)}});
          changed = true;
        }
        kept.push_back(b);
        continue;
      }
      // Pseudo statements (scope braces, declarations, tables) move to the block before.
      BasicBlock* prev = kept.empty() ? nullptr : kept.back();
      for (Instruction* i : b->insts())
        if (i->info().isPseudo() && prev) prev->append(i);
      ctx_->count("unreachable-blocks");
      ctx_->count("unreachable-instructions", real);
      ctx_->remark(b, "remove-unreachable", "no path from the entry reaches " + b->name(), {{"instructions", double(real)}});
      changed = true;
    }
    if (kept.size() != f_->blocks().size()) f_->blocks() = kept;
    return changed;
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  int64_t maxDepth_ = 8;
  FunctionAnalysisManager* am_ = nullptr;
  const ReachingDefs* rd_ = nullptr;
  std::optional<std::vector<bool>> foldedPreds_;  // by register: written by a folding comparison
  BranchTargetTables tables_;
  std::vector<size_t> layoutIndex_;
  std::vector<uint32_t> scopeAtEnd_;
  std::vector<uint32_t> threadDepthUsed_;
  bool rewritten_ = false;  // some branch or table changed since the analyses were computed
};

}  // namespace

PassInfo branchOptPassInfo() {
  return PassInfo{
      "branch-opt",
      "fold branches to the next block, constant and same-target conditions, thread branch chains, "
      "delete unreachable blocks",
      "003, OriBranchOpt (phase 15)",
      {
          {"max-thread-depth", KnobType::Int, "8", "at most this many blocks that only branch are threaded through"},
          {"convergence-loop", KnobType::Bool, "true",
           "re-examine a block after each rewrite until nothing applies (false: each block once)"},
          {"remove-unreachable", KnobType::Bool, "true", "delete blocks that no path from the entry reaches"},
      },
      [] { return std::make_unique<BranchOpt>(); },
  };
}

}  // namespace ptxopt
