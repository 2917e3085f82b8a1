// dce: dead-code elimination.
//
// An instruction goes when none of the registers it writes is live after it and it has no
// side effect (the opcode table's answer, refined by Instruction::hasSideEffects: volatile and
// acquire/release memory operations and `.cc` carry producers stay). Liveness is recomputed
// after each sweep until a sweep removes nothing. Then declarations shrink: a register that no
// instruction names is dropped from a plain declaration, a range `%r<N>` is cut after the
// highest register still named (registers are not renamed), and declarations left empty go.
// Terminators have side effects and stay, so the CFG and the analyses computed from it alone
// (dominators, post-dominators, frontiers, loops) are preserved.
#include <algorithm>

#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

class DeadCodeElimination : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    bool changed = false;
    uint64_t rounds = 0;
    for (;;) {
      const Liveness& lv = am.get<LivenessAnalysis>();
      uint64_t removed = sweep(f, lv, ctx);
      ++rounds;
      if (!removed) break;
      changed = true;
      am.invalidate(PreservedAnalyses::cfg());  // no terminator goes: the edges stay
    }
    ctx.count("rounds", rounds);
    if (ctx.knobs().getBool("shrink-declarations")) changed |= shrinkDeclarations(f, ctx);
    return changed ? PassResult::changed(PreservedAnalyses::cfg()) : PassResult::unchanged();
  }

 private:
  // hasSideEffects covers pseudo statements and opaque instructions too (the opcode table).
  static bool removable(const Instruction& i) { return i.numDefOperands() > 0 && !i.hasSideEffects(); }

  uint64_t sweep(Function& f, const Liveness& lv, PassContext& ctx) {
    uint64_t removed = 0;
    for (BasicBlock* b : f.blocks()) {
      BitVector live = lv.liveOut[b->id()];
      std::vector<Instruction*>& insts = b->insts();
      std::vector<Instruction*> keep;
      keep.reserve(insts.size());
      uint64_t here = 0;
      for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
        Instruction& i = **it;
        if (i.info().isPseudo()) {
          keep.push_back(&i);
          continue;
        }
        if (removable(i)) {
          bool anyLive = false;
          i.forEachDefReg([&](RegId r) { anyLive = anyLive || live.test(r); });
          if (!anyLive) {
            ++here;
            continue;
          }
        }
        forEachKilledReg(i, [&](RegId r) { live.reset(r); });
        i.forEachUseReg([&](RegId r) { live.set(r); });
        keep.push_back(&i);
      }
      if (here) {
        std::reverse(keep.begin(), keep.end());
        insts = std::move(keep);
        ctx.remark(b, "remove-dead", std::to_string(here) + " instruction(s) whose results are never read",
                   {{"instructions", double(here)}});
        removed += here;
      }
    }
    ctx.count("instructions-removed", removed);
    return removed;
  }

  bool shrinkDeclarations(Function& f, PassContext& ctx) {
    std::vector<uint8_t> used(f.regs().size(), 0);
    for (const BasicBlock* b : f.blocks())
      for (const Instruction* i : b->insts()) {
        if (i->hasGuard()) used[i->guard()] = 1;
        i->forEachLeaf([&](const Operand& o) {
          if (o.isReg() || (o.kind == OperandKind::Address && o.addressBase() == AddressBase::Reg)) used[o.id] = 1;
        });
      }
    bool changed = false;
    uint64_t dropped = 0;
    for (Decl& d : f.decls()) {
      if (d.kind != Decl::Kind::Reg) continue;
      std::vector<RegDeclEntry> entries;
      for (RegDeclEntry e : d.regs) {
        if (e.count == 0) {
          if (used[e.first]) entries.push_back(e);
          else ++dropped;
          continue;
        }
        uint32_t keepCount = 0;
        for (uint32_t k = e.count; k-- > 0;)
          if (used[e.first + k]) {
            keepCount = k + 1;
            break;
          }
        dropped += e.count - keepCount;
        if (keepCount) {
          e.count = keepCount;
          entries.push_back(e);
        }
      }
      if (entries.size() != d.regs.size() || !std::equal(entries.begin(), entries.end(), d.regs.begin(),
                                                          [](const RegDeclEntry& a, const RegDeclEntry& b) { return a.count == b.count; })) {
        d.regs = std::move(entries);
        changed = true;
      }
    }
    // Nested declarations left empty leave the instruction stream.
    for (BasicBlock* b : f.blocks()) {
      auto& v = b->insts();
      v.erase(std::remove_if(v.begin(), v.end(),
                             [&](Instruction* i) {
                               if (!i->is(Opcode::Decl)) return false;
                               const Decl& d = f.decls()[i->payload()];
                               return d.kind == Decl::Kind::Reg && d.regs.empty();
                             }),
              v.end());
    }
    if (dropped) {
      ctx.count("registers-undeclared", dropped);
      ctx.remark(nullptr, "shrink-declarations", std::to_string(dropped) + " declared register(s) no instruction names",
                 {{"registers", double(dropped)}});
    }
    return changed;
  }
};

}  // namespace

PassInfo deadCodeEliminationPassInfo() {
  return PassInfo{
      "dce",
      "remove instructions whose results are never used and that have no side effects; drop unused register "
      "declarations",
      "-",
      {
          {"shrink-declarations", KnobType::Bool, "true", "drop registers no instruction names from the declarations"},
      },
      [] { return std::make_unique<DeadCodeElimination>(); },
  };
}

}  // namespace ptxopt
