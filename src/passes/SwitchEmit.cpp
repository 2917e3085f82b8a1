// switch-opt's instruction builders: see SwitchEmit.h.
#include "SwitchEmit.h"

#include <algorithm>

#include "GuardedCode.h"

namespace ptxopt::switchopt {

ScalarType selectorType(const SwitchNode& root) {
  if (root.bits == 16) return root.isSigned ? ScalarType::S16 : ScalarType::U16;
  return root.isSigned ? ScalarType::S32 : ScalarType::U32;
}

ScalarType unsignedType(const SwitchNode& root) { return root.bits == 16 ? ScalarType::U16 : ScalarType::U32; }

Operand selectorImm(const SwitchNode& root, int64_t v) {
  if (root.bits == 16) return Operand::imm(root.isSigned ? int64_t(int16_t(v)) : int64_t(uint16_t(v)));
  return Operand::imm(root.isSigned ? int64_t(int32_t(v)) : int64_t(uint32_t(v)));
}

Instruction* place(const SwitchNode& root, Instruction* i) {
  i->setLoc(root.bra->loc());
  i->setDebugLoc(root.bra->debugLoc());
  return i;
}

Instruction* append(BasicBlock* b, const SwitchNode& root, Instruction* i) {
  place(root, i)->setParent(b);
  b->append(i);
  return i;
}

RegId emitSetp(Function& f, BasicBlock* b, const SwitchNode& root, CmpOp cmp, ScalarType ty, RegId on, Operand c) {
  RegId p = f.addRegister(ScalarType::Pred, "%swp");
  Instruction* s = buildInstruction(f, Opcode::Setp, ScalarType::None, {Operand::reg(p), Operand::reg(on), c}, nullptr);
  s->addMod(cmpMod(cmp));  // setp.CMP.TYPE
  s->addMod(typeMod(ty));
  append(b, root, s);
  return p;
}

RegId emitRunPredicate(Function& f, BasicBlock* b, const SwitchNode& root, const Run& r) {
  if (r.lo == r.hi) return emitSetp(f, b, root, CmpOp::Eq, selectorType(root), root.sel, selectorImm(root, r.lo));
  RegId t = f.addRegister(unsignedType(root), "%swi");
  emitBinary(f, b, root, Opcode::Sub, selectorType(root), t, Operand::reg(root.sel), selectorImm(root, r.lo));
  return emitSetp(f, b, root, CmpOp::Lt, unsignedType(root), t, Operand::imm(r.hi - r.lo + 1));
}

void emitBinary(Function& f, BasicBlock* b, const SwitchNode& root, Opcode o, ScalarType ty, RegId d, Operand x, Operand y) {
  append(b, root, buildInstruction(f, o, ty, {Operand::reg(d), x, y}, root.bra));
}

void removeRootNode(Function& f, BasicBlock* b, const SwitchNode& root) {
  auto& rv = b->insts();
  rv.erase(std::find(rv.begin(), rv.end(), root.bra));
  if (root.setp) rv.erase(std::find(rv.begin(), rv.end(), root.setp));
  if (!root.bra->is(Opcode::BrxIdx) || !(root.bra->operand(1).kind == OperandKind::Symbol)) return;
  uint32_t table = root.bra->operand(1).id;
  for (const BasicBlock* o : f.blocks())
    for (const Instruction* i : o->insts())
      if (i->is(Opcode::BrxIdx) && i->numOperands() == 2 && i->operand(1).kind == OperandKind::Symbol && i->operand(1).id == table && i != root.bra) return;
  for (auto it = rv.begin(); it != rv.end(); ++it)
    if ((*it)->is(Opcode::BranchTargets) && (*it)->payload() == table) {
      rv.erase(it);
      return;
    }
}

}  // namespace ptxopt::switchopt
