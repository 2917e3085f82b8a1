// switch-opt's canonicalization of LLVM's case constants (CaseConstants.h).
#include "CaseConstants.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Semantics.h"
#include "ptxopt/support/FloatBits.h"

#include "GuardedCode.h"
#include "SwitchTree.h"

namespace ptxopt::switchopt {

std::optional<std::pair<uint64_t, unsigned>> constantMov(const Instruction& i) {
  if (!i.is(Opcode::Mov) || i.hasGuard() || i.numOperands() != 2 || !i.operand(0).isReg() ||
      i.operand(0).component() != Component::None)
    return std::nullopt;
  ScalarType ty = i.type(0);
  unsigned bits = typeBits(ty);
  if (bits != 16 && bits != 32 && bits != 64) return std::nullopt;
  const Operand& src = i.operand(1);
  if (typeClass(ty) == TypeClass::Float) {
    std::optional<double> d = immediateAsFloat(src, ty);
    if (!d || std::isnan(*d)) return std::nullopt;  // NaN payloads: not worth the risk
    return std::make_pair(ty == ScalarType::F32 ? uint64_t(floatBits(float(*d))) : doubleBits(*d), bits / 8);
  }
  std::optional<uint64_t> v = immediateAsInt(src, ty);
  if (!v) return std::nullopt;
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  return std::make_pair(*v & mask, bits / 8);
}

std::vector<SunkConstants> sinkCaseConstants(Function& f, FunctionAnalysisManager& am, PassContext& ctx) {
  std::vector<SunkConstants> out;
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const Liveness& lv = am.get<LivenessAnalysis>();
  BranchTargetTables tables = collectBranchTargetTables(f);
  std::unordered_set<std::string_view> pinned = pinnedLabelNames(f, tables);
  SwitchTreeReader reader(f, tables, pinned);
  auto testsReg = [&](BasicBlock* b, RegId s, bool root) {
    std::optional<SwitchNode> t = b ? reader.nodeAt(b, root) : std::nullopt;
    return t && !t->isBrx() && (t->sel == s || t->tmp == s);
  };
  for (const BasicBlock* cb : cfg.rpo) {
    BasicBlock* b = const_cast<BasicBlock*>(cb);
    Instruction* br = conditionalBranch(*b);
    if (!br) continue;
    // The leading constant movs that nothing else in the block reads or writes.
    std::vector<Instruction*> real;
    for (Instruction* i : b->insts())
      if (!i->info().isPseudo()) real.push_back(i);
    size_t lead = 0;
    while (lead < real.size() && constantMov(*real[lead])) ++lead;
    std::vector<Instruction*> movs;
    std::set<RegId> dests;
    bool distinct = true;
    for (size_t k = 0; k < lead; ++k) {
      RegId d = RegId(real[k]->operand(0).id);
      bool used = false;
      for (size_t j = k + 1; j < real.size(); ++j) {
        real[j]->forEachUseReg([&](RegId r) { used |= r == d; });
        real[j]->forEachDefReg([&](RegId r) { used |= r == d && j >= lead; });
      }
      if (used) continue;  // the 1 of a bit test's shl, say: it stays
      distinct = distinct && dests.insert(d).second;
      movs.push_back(real[k]);
    }
    if (!distinct || movs.empty()) continue;
    // Without them the block must be a tree node (compare or bit test) on some selector.
    auto& bi = b->insts();
    const std::vector<Instruction*> saved = bi;
    std::erase_if(bi, [&](Instruction* i) { return std::find(movs.begin(), movs.end(), i) != movs.end(); });
    std::optional<SwitchNode> node = reader.nodeAt(b, /*root=*/false);
    bi = saved;
    if (!node || node->isBrx() || dests.count(node->sel) || dests.count(br->guard())) continue;
    BasicBlock* taken = b->successor(EdgeKind::Taken);
    BasicBlock* fall = b->successor(EdgeKind::FallThrough);
    if (!taken || !fall || taken == fall || !taken->hasLabel() || pinned.count(f.labelName(taken->label()))) continue;
    bool liveTaken = false, liveFall = false;
    for (RegId d : dests) {
      liveTaken |= lv.liveIn[taken->id()].test(d);
      liveFall |= lv.liveIn[fall->id()].test(d);
    }
    if (!liveTaken || liveFall) continue;
    bool neighbour = testsReg(reader.skipJumps(fall), node->sel, false);
    for (BasicBlock* p : b->preds()) neighbour = neighbour || (p != b && testsReg(p, node->sel, true));
    if (!neighbour) continue;
    // C goes after the last block that ends unconditionally (nothing falls into it).
    auto& blocks = f.blocks();
    size_t at = blocks.size();
    while (at > 0) {
      Instruction* t = blocks[at - 1]->terminator();
      if (t && !t->hasGuard() && (t->is(Opcode::Bra) || t->is(Opcode::Ret) || t->is(Opcode::Exit))) break;
      --at;
    }
    if (at == 0) continue;
    BasicBlock* c = f.createBlock();
    f.addLabel(c, "$Lswc");
    for (Instruction* m : movs) {
      bi.erase(std::find(bi.begin(), bi.end(), m));
      c->append(m);
    }
    c->append(buildInstruction(f, Opcode::Bra, ScalarType::None, {Operand::label(taken->label())}, br));
    const uint32_t before = braTarget(*br)->id;
    *braTarget(*br) = Operand::label(c->label());
    blocks.insert(blocks.begin() + long(at), c);
    out.push_back({b, c, br, before, movs, saved});
  }
  if (!out.empty()) {
    buildCfg(f);
    am.invalidate(PreservedAnalyses::none());
    ctx.count("sunk-case-constants", int64_t(out.size()));
  }
  return out;
}

size_t restoreUnused(Function& f, FunctionAnalysisManager& am, PassContext& ctx, const std::vector<SunkConstants>& sunk) {
  buildCfg(f);
  am.invalidate(PreservedAnalyses::none());
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  std::vector<const SunkConstants*> restore;
  for (const SunkConstants& k : sunk) {
    if (!cfg.reachable(k.b) || k.bra->parent() != k.b || braTarget(*k.bra)->id != k.c->label() || k.c->preds().size() != 1)
      continue;
    // The block as the sinking left it: the original without the movs.
    std::vector<Instruction*> without = k.original;
    std::erase_if(without, [&](Instruction* i) { return std::find(k.movs.begin(), k.movs.end(), i) != k.movs.end(); });
    if (k.b->insts() == without) restore.push_back(&k);
  }
  auto& blocks = f.blocks();
  for (const SunkConstants* k : restore) {
    k->b->insts() = k->original;
    for (Instruction* m : k->movs) m->setParent(k->b);
    k->c->insts().clear();
    *braTarget(*k->bra) = Operand::label(k->target);
    blocks.erase(std::find(blocks.begin(), blocks.end(), k->c));
    ctx.count("sunk-case-constants-restored");
  }
  buildCfg(f);
  am.invalidate(PreservedAnalyses::none());
  return restore.size();
}

}  // namespace ptxopt::switchopt
