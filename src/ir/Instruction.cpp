#include "ptxopt/ir/Instruction.h"

#include <algorithm>
#include <vector>

#include "ptxopt/ir/Function.h"

namespace ptxopt {

bool Instruction::has(Mod m) const {
  for (Mod x : mods_)
    if (x == m) return true;
  return false;
}

void Instruction::removeMod(Mod m) {
  for (uint32_t i = 0; i < mods_.size(); ++i)
    if (mods_[i] == m) {
      mods_.erase(i);
      return;
    }
}

ScalarType Instruction::type(unsigned n) const {
  for (Mod m : mods_)
    if (auto t = modType(m)) {
      if (n == 0) return *t;
      --n;
    }
  return ScalarType::None;
}

StateSpace Instruction::space() const {
  for (Mod m : mods_)
    if (auto s = modSpace(m)) return *s;
  return StateSpace::Generic;
}

std::optional<CmpOp> Instruction::cmp() const {
  for (Mod m : mods_)
    if (auto c = modCmp(m)) return c;
  return std::nullopt;
}

std::optional<Rounding> Instruction::rounding() const {
  for (Mod m : mods_)
    if (auto r = modRounding(m)) return r;
  return std::nullopt;
}

unsigned Instruction::vectorWidth() const {
  for (Mod m : mods_) {
    if (m == Mod::V2) return 2;
    if (m == Mod::V4) return 4;
    if (m == Mod::V8) return 8;
  }
  return 1;
}

Operand Instruction::makeComposite(OperandKind kind, std::span<const Operand> elems) {
  Operand o;
  o.kind = kind;
  o.id = ops_.size() - numOps_;
  o.aux = static_cast<uint16_t>(elems.size());
  InlineVec<Operand, 8> copy;  // `elems` may point into this instruction's own storage
  for (const Operand& e : elems) copy.push_back(e);
  for (const Operand& e : copy) ops_.push_back(e);
  return o;
}

bool Instruction::hasSideEffects() const {
  const OpcodeInfo& i = info();
  if (i.hasSideEffects()) return true;
  if (has(Mod::Cc)) return true;
  return i.is(OpFlag::MemRead | OpFlag::MemWrite) && memoryStrength() == MemoryStrength::Ordering;
}

bool Instruction::sameOperation(const Instruction& o) const {
  if (op_ != o.op_ || payload_ != o.payload_ || numOps_ != o.numOps_ || mods_.size() != o.mods_.size()) return false;
  for (size_t k = 0; k < mods_.size(); ++k)
    if (mods_[k] != o.mods_[k]) return false;
  for (uint32_t k = 0; k < numOps_; ++k) {
    std::vector<Operand> a, b;
    visitLeaves(ops_[k], [&](const Operand& x) { a.push_back(x); });
    o.visitLeaves(o.ops_[k], [&](const Operand& x) { b.push_back(x); });
    if (a != b || ops_[k].kind != o.ops_[k].kind) return false;
  }
  return true;
}

bool Instruction::isSpeculatable() const { return info().is(OpFlag::Speculatable) && !has(Mod::Cc); }

Instruction::MemoryStrength Instruction::memoryStrength() const {
  MemoryStrength s = MemoryStrength::Weak;
  for (Mod m : mods_) {
    if (m == Mod::Volatile || m == Mod::Acquire || m == Mod::Release || m == Mod::AcqRel || m == Mod::Mmio)
      return MemoryStrength::Ordering;
    if (m == Mod::Relaxed) s = MemoryStrength::Relaxed;
  }
  return s;
}

unsigned Instruction::numDefOperandsSlow(const Signature& sig) const {
  switch (sig.form) {
    case SignatureForm::FreeNoDefs: return 0;
    case SignatureForm::FreeFirstReadWrite: return 1;
    case SignatureForm::FreeFirstMaybeDef:
      return ops_[0].kind == OperandKind::Address || ops_[0].kind == OperandKind::Bracket ? 0 : 1;
    case SignatureForm::Shapes: break;
  }
  if (sig.fixedDefs != Signature::kDefsVary) return sig.fixedDefs;
  // The shapes that apply by modifiers agree on their results (bar.red writes, bar does not).
  const OperandShape* shape = firstApplicableShape(*this);
  return shape ? shape->numDefs : 0;
}

std::vector<RegId> Instruction::returnRegisters() const {
  std::vector<RegId> out;
  const Function* f = parent_ ? parent_->parent() : nullptr;
  if (!f) return out;
  std::vector<uint32_t> names;
  for (const Variable& v : f->returnParams)
    if (v.space == StateSpace::Reg) names.push_back(v.name);
  if (names.empty()) return out;
  // Parameter registers are the ones without a `.reg` declaration in the body.
  for (size_t r = 0; r < f->regs().size(); ++r) {
    const RegInfo& ri = f->regs()[r];
    if (ri.decl == UINT32_MAX && std::find(names.begin(), names.end(), ri.name) != names.end())
      out.push_back(static_cast<RegId>(r));
  }
  return out;
}

}  // namespace ptxopt
