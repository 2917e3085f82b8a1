// switch-opt's predicated switches: see SwitchPredicated.h.
#include "SwitchPredicated.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "GuardedCode.h"
#include "SwitchEmit.h"

namespace ptxopt::switchopt {

namespace {

// The instructions of `b` without its closing unconditional bra, if every one is predicable
// and has no guard and `b` has one successor; nullopt otherwise.
std::optional<std::vector<Instruction*>> straightLine(BasicBlock* b) {
  if (b->succs().size() != 1) return std::nullopt;
  std::vector<Instruction*> real;
  for (Instruction* i : b->insts()) {
    if (i == b->terminator() && i->is(Opcode::Bra) && !i->hasGuard()) continue;
    if (!whyNotPredicable(*i).empty() || i->hasGuard()) return std::nullopt;
    real.push_back(i);
  }
  return real;
}

// The bits of the values (minus `first`) whose target is `t`, or of every case value when `t`
// is null.
uint32_t caseMask(const std::vector<Run>& runs, int64_t first, const BasicBlock* t) {
  uint32_t mask = 0;
  for (const Run& r : runs)
    if (!t || r.target == t)
      for (int64_t v = r.lo; v <= r.hi; ++v) mask |= 1u << unsigned(v - first);
  return mask;
}

// Appends `and.b32 %t, BIT, MASK; setp.CMP.b32 %p, %t, 0`; returns %p.
RegId emitMaskTest(Function& f, BasicBlock* b, const SwitchNode& root, RegId bit, uint32_t mask, CmpOp cmp) {
  RegId t = f.addRegister(ScalarType::U32, "%swi");
  emitBinary(f, b, root, Opcode::And, ScalarType::B32, t, Operand::reg(bit), Operand::imm(int64_t(mask)));
  return emitSetp(f, b, root, cmp, ScalarType::B32, t, Operand::imm(0));
}

// Appends to `b` the default's predicate, "the selector is in none of the runs", in the
// fewest instructions: when the runs leave no hole, the span's range check; when the span
// has holes and fits in 32 values of a 32-bit selector, a test of bit (selector - first) of
// the span's case mask (a shift by 32 or more, which every value outside the span gives
// when read unsigned, leaves 0); otherwise the not of the or of the runs' predicates.
enum class DefaultForm { Range, Mask, Chain };
// How the default's predicate is computed for `runs` leading to `targets` blocks, and in how
// many instructions.
std::pair<DefaultForm, unsigned> defaultForm(const SwitchNode& root, const std::vector<Run>& runs, size_t targets) {
  const int64_t first = runs.front().lo, span = runs.back().hi - first + 1;
  bool holes = false;
  for (size_t k = 1; k < runs.size(); ++k) holes |= runs[k].lo != runs[k - 1].hi + 1;
  const unsigned offset = first != 0 ? 1 : 0;
  if (!holes) return {DefaultForm::Range, 1 + offset};
  if (root.bits == 32 && span <= 32 && targets > 3 + offset) return {DefaultForm::Mask, 3 + offset};
  return {DefaultForm::Chain, unsigned(targets)};  // the ors over the targets' predicates, and the not
}

template <class Logic>
RegId emitDefaultPredicate(Function& f, BasicBlock* b, const SwitchNode& root, const std::vector<Run>& runs, const BlockMap<RegId>& pred,
                           Logic&& logic) {
  const int64_t first = runs.front().lo, last = runs.back().hi, span = last - first + 1;
  const DefaultForm form = defaultForm(root, runs, pred.size()).first;
  if (form == DefaultForm::Range) {
    // The complement of the run [first, last]: its check with >= instead of <.
    RegId t = root.sel;
    if (first != 0) {
      t = f.addRegister(unsignedType(root), "%swi");
      emitBinary(f, b, root, Opcode::Sub, selectorType(root), t, Operand::reg(root.sel), selectorImm(root, first));
    }
    return emitSetp(f, b, root, CmpOp::Ge, unsignedType(root), t, Operand::imm(span));
  }
  if (form == DefaultForm::Mask) {
    const uint32_t mask = caseMask(runs, first, nullptr);
    RegId t = root.sel;
    if (first != 0) {
      t = f.addRegister(ScalarType::U32, "%swi");
      emitBinary(f, b, root, Opcode::Sub, ScalarType::S32, t, Operand::reg(root.sel), selectorImm(root, first));
    }
    RegId bits = f.addRegister(ScalarType::U32, "%swi");
    emitBinary(f, b, root, Opcode::Shr, ScalarType::B32, bits, Operand::imm(int64_t(mask)), Operand::reg(t));
    emitBinary(f, b, root, Opcode::And, ScalarType::B32, bits, Operand::reg(bits), Operand::imm(1));
    return emitSetp(f, b, root, CmpOp::Eq, ScalarType::U32, bits, Operand::imm(0));
  }
  RegId any = kNoReg;
  for (auto& [t, p] : pred) any = any == kNoReg ? p : logic(Opcode::Or, any, p);
  return logic(Opcode::Not, any, kNoReg);
}

}  // namespace

std::optional<PredicatedSwitch> planPredicated(Function& f, const SwitchTreeReader& reader, BasicBlock* rootBlock,
                                               const NodesByBlock& tests, const std::vector<Run>& runs, BasicBlock* dflt,
                                               const Liveness& lv, bool speculate, std::string& why) {
  BlockSet targets{dflt};
  for (const Run& r : runs) targets.insert(r.target);
  // Each target's walk through straight-line blocks (at most 8).
  BlockMap<std::vector<BasicBlock*>> walks;
  for (BasicBlock* t : targets) {
    std::vector<BasicBlock*>& w = walks[t];
    for (BasicBlock* b = t; w.size() <= 8; b = reader.skipJumps(b->succs()[0].to)) {
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
  for (BasicBlock* b : f.blocks())
    if (ps.by.count(b)) ps.blocks.push_back(b);
  std::stable_sort(ps.blocks.begin(), ps.blocks.end(), [&](BasicBlock* a, BasicBlock* b) { return depth[a] > depth[b]; });
  // An instruction of block B may run for every lane when it cannot fault or have an effect
  // and each register it writes is a private temporary of B: written nowhere else in the
  // function and live neither at the switch nor at the join. A lane outside B's guard then
  // never reads what it wrote: in the branching program such a lane would reach a read only
  // through a definition, and every definition is in B, which it does not pass. Guarded, the
  // temporary would cost ptxas a select to keep each other lane's old value.
  if (speculate) {
    const DefinitionSites defs(f);
    for (BasicBlock* b : ps.blocks) {
      auto onlyB = [b](const BasicBlock* site) { return site == b; };
      const std::vector<Instruction*> body = *straightLine(b);  // (a copy: the optional is a temporary)
      for (const Instruction* i : body)
        if (writesOnlyPrivateTemporaries(*i, defs, onlyB, {&lv.liveIn[rootBlock->id()], &lv.liveIn[ps.join->id()]}))
          ps.unguarded.insert(i);
    }
    // So may the first write in the line of a register dead after the root block (the first
    // write of a switch's result, dense_switch).
    FirstWrites firstWrites(lv.liveOut[rootBlock->id()]);
    for (BasicBlock* b : ps.blocks) {
      const std::vector<Instruction*> body = *straightLine(b);
      for (const Instruction* i : body) {
        if (firstWrites.mayRunUnguarded(*i)) ps.unguarded.insert(i);
        firstWrites.after(*i);
      }
    }
  }
  return ps;
}

// The cheaper of the two ways (ties keep the runs): runs only, where a target costs a setp per
// run, a sub per run of several values and an or per extra run, and the default its form's
// count; or the shared bit (the sub and the shl), where each target whose runs cost two or
// more is masked and the default tests the mask of every case. Counted as ptxas 13.0 emits
// them (switch_holes): the shl two (the 1 goes into a register first), a mask test one (one
// LOP3 writes the predicate of the `and` and the `setp`).
PredicatePlan planPredicates(const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt, const PredicatedSwitch& ps,
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

void emitPredicated(Function& f, size_t rootIndex, const SwitchNode& root, const std::vector<Run>& runs, BasicBlock* dflt,
                    const PredicatedSwitch& ps, bool caseMasks) {
  BasicBlock* rootBlock = f.blocks()[rootIndex];
  removeRootNode(f, rootBlock, root);
  if (!ps.join->hasLabel()) f.addLabel(ps.join, "$Lsw");
  auto logic = [&](Opcode op, RegId a, RegId b) {
    RegId p = f.addRegister(ScalarType::Pred, "%swp");
    Instruction* o = buildInstruction(f, op, ScalarType::Pred, {Operand::reg(p), Operand::reg(a)}, nullptr);
    if (b != kNoReg) o->addOperand(Operand::reg(b));
    append(rootBlock, root, o);
    return p;
  };
  const PredicatePlan plan = planPredicates(root, runs, dflt, ps, caseMasks);
  BlockMap<RegId> pred;
  RegId bit = kNoReg;  // 1 << (selector - first), when some predicate tests the case masks
  if (plan.bit) {
    RegId t = root.sel;
    if (plan.first != 0) {
      t = f.addRegister(ScalarType::U32, "%swi");
      emitBinary(f, rootBlock, root, Opcode::Sub, ScalarType::S32, t, Operand::reg(root.sel), selectorImm(root, plan.first));
    }
    bit = f.addRegister(ScalarType::U32, "%swi");
    emitBinary(f, rootBlock, root, Opcode::Shl, ScalarType::B32, bit, Operand::imm(1), Operand::reg(t));
  }
  // A masked target's predicate: its bits of the case mask. Others: one predicate per run,
  // or-ed; the default's is none of them.
  for (const Run& r : runs) {
    if (plan.masked.count(r.target)) {
      if (!pred.count(r.target)) pred[r.target] = emitMaskTest(f, rootBlock, root, bit, caseMask(runs, plan.first, r.target), CmpOp::Ne);
      continue;
    }
    RegId p = emitRunPredicate(f, rootBlock, root, r);
    auto [it, fresh] = pred.emplace(r.target, p);
    if (!fresh) it->second = logic(Opcode::Or, it->second, p);
  }
  if (dflt != ps.join) {
    if (plan.bit)
      pred[dflt] = emitMaskTest(f, rootBlock, root, bit, caseMask(runs, plan.first, nullptr), CmpOp::Eq);
    else
      pred[dflt] = emitDefaultPredicate(f, rootBlock, root, runs, pred, logic);
  }
  // A block's guard: the or of the predicates of the targets whose chain holds it.
  for (BasicBlock* b : ps.blocks) {
    RegId g = kNoReg;
    for (BasicBlock* t : ps.by.at(b)) g = g == kNoReg ? pred.at(t) : logic(Opcode::Or, g, pred.at(t));
    std::vector<Instruction*> body = *straightLine(b);
    for (Instruction* i : body) {
      Instruction* c = f.cloneInstruction(*i);
      if (!ps.unguarded.count(i)) c->setGuard(g, false);
      c->setParent(rootBlock);
      rootBlock->append(c);
    }
  }
  append(rootBlock, root, buildBra(f, ps.join->label(), kNoReg, false, nullptr));
}

}  // namespace ptxopt::switchopt
