// ThreadIndexFacts: which branches split at most one warp, or none (ThreadIndexFacts.h).
#include "ThreadIndexFacts.h"


namespace ptxopt {

ThreadIndexFacts::ThreadIndexFacts(const std::vector<const BasicBlock*>& blocks, const BitVector& everDivergent)
    : everDivergent_(everDivergent) {
  for (const BasicBlock* b : blocks)
    for (const Instruction* i : b->insts())
      i->forEachDefReg([&](RegId r) {
        auto [it, first] = uniqueDef_.emplace(r, i);
        if (!first) it->second = nullptr;
      });
}

// An immediate, a warp-uniform special register, or a register divergent nowhere.
bool ThreadIndexFacts::uniformOperand(const Operand& u) const {
  if (u.isImm()) return true;
  if (u.kind == OperandKind::Special) return specialRegInfo(static_cast<SpecialReg>(u.id)).uniform;
  return u.isReg() && u.component() == Component::None && !everDivergent_.test(u.id);
}

static bool isTidXRegister(const Operand& o) {
  return o.kind == OperandKind::Special && static_cast<SpecialReg>(o.id) == SpecialReg::Tid && o.component() == Component::X;
}

const Instruction* ThreadIndexFacts::definition(const Operand& o) const {
  if (!o.isReg() || o.component() != Component::None) return nullptr;
  auto it = uniqueDef_.find(static_cast<RegId>(o.id));
  return it == uniqueDef_.end() || !it->second || it->second->hasGuard() ? nullptr : it->second;
}

const Instruction* ThreadIndexFacts::integerSetp(const Instruction& br) const {
  const Instruction* s = definition(Operand::reg(br.guard()));
  if (!s || !s->is(Opcode::Setp) || s->numOperands() != 3) return nullptr;
  TypeClass tc = typeClass(s->type(0));
  return tc == TypeClass::Signed || tc == TypeClass::Unsigned || tc == TypeClass::Bit ? s : nullptr;
}

// Is the value %tid.x plus or minus warp-uniform terms (through mov, cvt, add, sub, and mad
// whose factors are uniform)? Lanes of a warp hold consecutive %tid.x (in one-dimensional
// blocks, the common case), so such a value rises by one from lane to lane; compared with a
// warp-uniform bound it splits at most the one warp whose lanes straddle the bound, and every
// other warp of the CTA goes one way: `if (tid < s)` in a reduction, `if (i < n)`.
bool ThreadIndexFacts::laneLinear(const Operand& o, int depth) const {
  if (isTidXRegister(o)) return true;
  const Instruction* def = depth > 8 ? nullptr : definition(o);
  if (!def) return false;
  const Instruction& d = *def;
  size_t n = d.numOperands();
  if ((d.is(Opcode::Mov) || d.is(Opcode::Cvt)) && n == 2) return laneLinear(d.operand(1), depth + 1);
  if (d.is(Opcode::Add) && n == 3)
    return (laneLinear(d.operand(1), depth + 1) && uniformOperand(d.operand(2))) ||
           (uniformOperand(d.operand(1)) && laneLinear(d.operand(2), depth + 1));
  if (d.is(Opcode::Sub) && n == 3) return laneLinear(d.operand(1), depth + 1) && uniformOperand(d.operand(2));
  if (d.is(Opcode::Mad) && n == 4)
    return uniformOperand(d.operand(1)) && uniformOperand(d.operand(2)) && laneLinear(d.operand(3), depth + 1);
  return false;
}

// %tid.x itself (through mov and cvt).
bool ThreadIndexFacts::isTidX(const Operand& o, int depth) const {
  if (isTidXRegister(o)) return true;
  const Instruction* d = depth > 4 ? nullptr : definition(o);
  return d && (d->is(Opcode::Mov) || d->is(Opcode::Cvt)) && d->numOperands() == 2 && isTidX(d->operand(1), depth + 1);
}

// The lanes of a warp share %tid.x's bits 5 and up (in one-dimensional blocks, and wherever
// the x extent is at most 32). Does the branch test only those bits: `tid & C` compared with a
// multiple of 32, or `tid ^ C` compared with `tid`, C a nonzero multiple of 32 (`(tid & C) == 0`
// and `(tid ^ C) < tid`: bitonic sort's partner tests for strides of 32 and more)? Then no warp
// splits on it.
bool ThreadIndexFacts::highTidBitsBranch(const Instruction& br) const {
  const Instruction* setp = integerSetp(br);
  if (!setp) return false;
  auto highConst = [](const Operand& c) { return c.isImm() && c.value != 0 && (uint64_t(c.value) & 31) == 0; };
  auto highBits = [&](const Operand& o, Opcode op) {
    const Instruction* d = definition(o);
    return d && d->is(op) && d->numOperands() == 3 &&
           ((isTidX(d->operand(1)) && highConst(d->operand(2))) || (highConst(d->operand(1)) && isTidX(d->operand(2))));
  };
  const Operand &a = setp->operand(1), &b = setp->operand(2);
  // (tid & C) compared with a constant: only the bits C keeps decide.
  if ((highBits(a, Opcode::And) && b.isImm() && (uint64_t(b.value) & 31) == 0) ||
      (highBits(b, Opcode::And) && a.isImm() && (uint64_t(a.value) & 31) == 0))
    return true;
  // tid ^ C against tid: they differ in C's bits only, so the order is that of those bits.
  return (highBits(a, Opcode::Xor) && isTidX(b)) || (highBits(b, Opcode::Xor) && isTidX(a));
}

// Is the branch's predicate an integer comparison of a lane-linear value with a uniform one?
bool ThreadIndexFacts::thresholdBranch(const Instruction& br) const {
  const Instruction* s = integerSetp(br);
  return s && ((laneLinear(s->operand(1), 0) && uniformOperand(s->operand(2))) ||
               (uniformOperand(s->operand(1)) && laneLinear(s->operand(2), 0)));
}

}  // namespace ptxopt
