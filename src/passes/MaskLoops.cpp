// mask-regions' divergent loops: see MaskLoops.h.
#include "MaskLoops.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Loops.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"

#include "GuardedCode.h"

namespace ptxopt {
namespace {

// A loop whose exit diverges, as a uniform loop under a mask. The loop must be a chain after the
// region walk: header H, blocks each with one successor in the loop, one latch jumping back to
// H, one preheader P that only falls or jumps into H, every exit edge to one block Ex, all of it
// predicable. Then:
//   P:     activemask.b32 %lanes; mov.pred %mask, 1;      (the lanes that enter)
//   body:  every instruction under %mask (an existing guard @q becomes and.pred %t, %mask, q)
//   exit:  @c bra Ex  ->  and.pred %mask, %mask, !c       (lanes that leave stop running)
//   latch: vote.sync.any.pred %any, %mask, %lanes; @%any bra.uni H; then on to Ex
// A lane that left keeps its registers as they were when it left (every write is guarded), and
// the warp leaves together once no lane is active: the loop's branches no longer diverge.
class LoopMasker {
 public:
  LoopMasker(Function& f, PassContext& ctx, bool syncVotes, int64_t maxSize)
      : f_(&f), ctx_(&ctx), syncVotes_(syncVotes), maxSize_(maxSize) {}

  bool convertOne(FunctionAnalysisManager& am) {
    const CfgInfo& cfg = am.get<CfgAnalysis>();
    const LoopInfo& li = am.get<LoopAnalysis>();
    const UniformityInfo& uni = am.get<UniformityAnalysis>();
    pinned_ = pinnedLabelNames(*f_, collectBranchTargetTables(*f_));
    // By header, in reverse post-order (outer loops before the loops they contain).
    std::vector<const Loop*> loops;
    for (const Loop& l : li.loops) loops.push_back(&l);
    std::sort(loops.begin(), loops.end(), [](const Loop* a, const Loop* b) { return a->header < b->header; });
    for (const Loop* lp : loops) {
      const Loop& loop = *lp;
      BasicBlock* H = const_cast<BasicBlock*>(cfg.rpo[loop.header]);
      if (loop.latches.size() != 1 || done_.count(H)) continue;
      std::string why = refusal(loop, cfg, uni);
      if (!why.empty()) {
        if (refused_.insert(H).second) {
          ctx_->count("refused-loop-shape");
          ctx_->remark(H, "keep", "loop at " + H->name() + ": " + why);
        }
        continue;
      }
      carryOutLoop(loop.header, loop.latches[0], shape_.preheader, cfg);
      done_.insert(H);
      return true;
    }
    return false;
  }

 private:
  static constexpr uint32_t kNone = ~0u;

  // Why the loop cannot run under a mask ("" when it can); fills shape_.
  std::string refusal(const Loop& loop, const CfgInfo& cfg, const UniformityInfo& uni) {
    shape_ = {};
    const uint32_t h = loop.header, latch = loop.latches[0];
    std::vector<uint32_t> outside;
    for (uint32_t q : cfg.pred[h])
      if (q != latch) outside.push_back(q);
    if (outside.size() != 1 || cfg.succ[outside[0]].size() != 1) return "no preheader that only enters the loop";
    auto inLoop = [&](uint32_t b) { return std::binary_search(loop.blocks.begin(), loop.blocks.end(), b); };
    // The chain from H to the latch.
    bool divergentExit = false;
    int64_t size = 0;
    for (uint32_t b = h;;) {
      shape_.chain.push_back(b);
      const BasicBlock* B = cfg.rpo[b];
      if (B->hasLabel() && pinned_.count(f_->labelName(B->label()))) return "a debug section or a branch table names " + B->name();
      if (b != h && cfg.pred[b].size() != 1) return B->name() + " has more than one predecessor";
      for (const Instruction* i : B->insts()) {
        if ((i == B->terminator() && i->is(Opcode::Bra)) || i->info().isPseudo()) continue;
        if (std::string w = whyNotPredicable(*i); !w.empty()) return "not predicable: " + w + " (line " + std::to_string(i->loc().line) + ")";
        ++size;
      }
      std::vector<uint32_t> in, out;
      for (uint32_t s : cfg.succ[b]) (inLoop(s) ? in : out).push_back(s);
      if (in.size() != 1 || out.size() > 1 || (b == latch) != (in[0] == h)) return "a branch inside the loop body (" + B->name() + ")";
      if (out.size() == 1) {
        if (conditionalBranch(*const_cast<BasicBlock*>(B)) == nullptr) return "an exit that is not a plain conditional branch";
        if (shape_.exitBlock == kNone) shape_.exitBlock = out[0];
        else if (shape_.exitBlock != out[0]) return "exits to more than one block";
        divergentExit |= uni.isDivergentBranch(B);
      }
      if (b == latch) break;
      if (shape_.chain.size() >= loop.blocks.size()) return "not a chain of blocks";
      b = in[0];
    }
    if (shape_.chain.size() != loop.blocks.size()) return "not a chain of blocks";
    if (shape_.exitBlock == kNone) return "no exit";
    if (!divergentExit) return "every exit is warp-uniform";
    if (size > maxSize_) return "larger than max-size " + std::to_string(maxSize_);
    shape_.preheader = outside[0];
    return "";
  }

  void carryOutLoop(uint32_t h, uint32_t latch, uint32_t pre, const CfgInfo& cfg) {
    BasicBlock* H = const_cast<BasicBlock*>(cfg.rpo[h]);
    BasicBlock* P = const_cast<BasicBlock*>(cfg.rpo[pre]);
    BasicBlock* Ex = const_cast<BasicBlock*>(cfg.rpo[shape_.exitBlock]);
    BasicBlock* L = const_cast<BasicBlock*>(cfg.rpo[latch]);
    // Where the new instructions say they come from: the latch's jump, or any instruction of the
    // loop (a latch may be empty and fall into H).
    const Instruction* at = L->terminator();
    for (uint32_t b : shape_.chain)
      if (!at) at = cfg.rpo[b]->terminator();
    RegId mask = f_->addRegister(ScalarType::Pred, "%mask");
    RegId lanes = syncVotes_ ? f_->addRegister(ScalarType::B32, "%lanes") : kNoReg;
    auto build = [&](Opcode op, ScalarType t, std::initializer_list<Operand> ops) {
      return buildInstruction(*f_, op, t, ops, at);
    };
    auto jump = [&](BasicBlock* to, const char* prefix) {
      if (!to->hasLabel()) f_->addLabel(to, prefix);
      Instruction* j = build(Opcode::Bra, ScalarType::None, {Operand::label(to->label())});
      j->addMod(Mod::Uni);
      return j;
    };
    // P: the lanes that enter, before P's jump (if any).
    {
      std::vector<Instruction*> add;
      if (lanes != kNoReg) add.push_back(build(Opcode::Activemask, ScalarType::B32, {Operand::reg(lanes)}));
      add.push_back(build(Opcode::Mov, ScalarType::Pred, {Operand::reg(mask), Operand::imm(1)}));
      auto& v = P->insts();
      Instruction* t = P->terminator();
      auto pos = t && t->is(Opcode::Bra) ? std::find(v.begin(), v.end(), t) : v.end();
      for (Instruction* i : add) i->setParent(P);
      v.insert(pos, add.begin(), add.end());
    }
    unsigned guarded = 0;
    auto& layout = f_->blocks();
    auto layoutNext = [&](BasicBlock* B) -> BasicBlock* {
      auto it = std::find(layout.begin(), layout.end(), B);
      return it == layout.end() || it + 1 == layout.end() ? nullptr : *(it + 1);
    };
    for (uint32_t b : shape_.chain) {
      BasicBlock* B = const_cast<BasicBlock*>(cfg.rpo[b]);
      std::vector<Instruction*> out;
      // (The mask is written only after the last instruction of a block.)
      GuardedLine line(*f_, out, mask, false, "%mask", at);
      Instruction* term = B->terminator();
      bool jumps = term && term->is(Opcode::Bra);
      for (Instruction* i : B->insts()) {
        if (jumps && i == term) continue;
        if (i->info().isPseudo()) {
          out.push_back(i);
          continue;
        }
        line.add(i);
        ++guarded;
      }
      // Where the block goes: the exit clears lanes; the chain goes on.
      BasicBlock* next = nullptr;  // the in-loop successor, when it is not H
      for (const Edge& e : B->succs())
        if (e.to != Ex && e.to != H) next = e.to;
      // (A branch whose two edges meet in the loop is no exit: it goes, like a jump.)
      bool exits = std::any_of(B->succs().begin(), B->succs().end(), [&](const Edge& e) { return e.to == Ex; });
      if (exits && conditionalBranch(*B) == term && term && B->succs().size() == 2) {
        BasicBlock* taken = B->successor(EdgeKind::Taken);
        // The exit condition: the guard when the branch jumps to Ex, its negation otherwise.
        bool exitNeg = taken == Ex ? term->guardNegated() : !term->guardNegated();
        out.push_back(build(Opcode::And, ScalarType::Pred,  // mask &= !exit
                            {Operand::reg(mask), Operand::reg(mask), predOperand(term->guard(), !exitNeg)}));
        ctx_->count("loop-exits-masked");
      }
      if (b == latch) {
        RegId any = f_->addRegister(ScalarType::Pred, "%mask");
        out.push_back(buildVoteAny(*f_, any, Operand::reg(mask), lanes, at));
        Instruction* back = jump(H, "$L__mask_loop");
        back->setGuard(any, false);
        out.push_back(back);
        if (layoutNext(B) != Ex) {
          // The way out, in a block of its own after the latch (a block ends at its branch).
          BasicBlock* tail = f_->createBlock();
          tail->append(jump(Ex, "$L__mask_exit"));
          layout.insert(std::find(layout.begin(), layout.end(), B) + 1, tail);
        }
      } else if (next && layoutNext(B) != next) {
        out.push_back(jump(next, "$L__mask_body"));
      }
      B->insts().clear();
      for (Instruction* i : out) B->append(i);
    }
    ctx_->count("loops-converted");
    ctx_->count("predicated-instructions", guarded);
    ctx_->remark(H, "convert", "loop at " + H->name() + ": " + std::to_string(shape_.chain.size()) +
                                   " blocks under a mask, " + std::to_string(guarded) + " instructions guarded");
  }

  Function* f_;
  PassContext* ctx_;
  bool syncVotes_;
  int64_t maxSize_;
  std::unordered_set<std::string_view> pinned_;
  struct {
    std::vector<uint32_t> chain;  // H .. latch (RPO numbers)
    uint32_t exitBlock = kNone, preheader = kNone;
  } shape_;
  std::unordered_set<const BasicBlock*> done_, refused_;
};

}  // namespace

bool maskDivergentLoops(Function& f, FunctionAnalysisManager& am, PassContext& ctx, bool syncVotes, int64_t maxSize) {
  LoopMasker m(f, ctx, syncVotes, maxSize);
  bool changed = false;
  while (m.convertOne(am)) {
    changed = true;
    buildCfg(f);
    am.invalidate(PreservedAnalyses::none());
  }
  return changed;
}

}  // namespace ptxopt
