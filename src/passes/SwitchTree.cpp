// switch-opt's reader of compare-tree nodes (SwitchTree.h).
#include "SwitchTree.h"

#include <algorithm>

#include "GuardedCode.h"

namespace ptxopt::switchopt {

// The test ending `b`: setp on a register against an immediate, then the guarded bra on its
// predicate. Outside the root the block holds nothing else, or an add (sub) of a constant to
// the selector first, whose result the setp compares.
std::optional<SwitchNode> SwitchTreeReader::nodeAt(BasicBlock* b, bool root) const {
  std::vector<Instruction*> real;
  for (Instruction* i : b->insts())
    if (!i->info().isPseudo()) real.push_back(i);
  if (!real.empty() && real.back()->is(Opcode::BrxIdx)) return root ? rootBrxAt(b, real) : brxAt(real);
  return compareNodeAt(b, root, real);
}
std::optional<SwitchNode> SwitchTreeReader::compareNodeAt(BasicBlock* b, bool root, const std::vector<Instruction*>& real) const {
  Instruction* br = root ? rootBranch(*b) : conditionalBranch(*b);
  if (!br || real.size() < 2 || (!root && real.size() > 6)) return std::nullopt;
  Instruction* s = real[real.size() - 2];
  if (!s->is(Opcode::Setp) || s->hasGuard() || s->numOperands() != 3) return std::nullopt;
  const Operand& d = s->operand(0);
  if (!d.isReg() || static_cast<RegId>(d.id) != br->guard()) return std::nullopt;
  const Operand &a = s->operand(1), &c = s->operand(2);
  if (!a.isReg() || a.component() != Component::None || !c.isImm()) return std::nullopt;
  ScalarType ty = s->type(0);
  if ((typeBits(ty) != 32 && typeBits(ty) != 16) || (typeClass(ty) != TypeClass::Signed && typeClass(ty) != TypeClass::Unsigned &&
                             typeClass(ty) != TypeClass::Bit))
    return std::nullopt;
  std::optional<CmpOp> cmp;
  for (Mod m : s->mods())
    if (auto c2 = modCmp(m)) cmp = c2;
  if (!cmp) return std::nullopt;
  SwitchNode t;
  t.setp = s;
  t.bra = br;
  t.cmp = *cmp;
  t.sel = static_cast<RegId>(a.id);
  t.pred = br->guard();
  switch (*cmp) {
    case CmpOp::Eq: case CmpOp::Ne: t.isSigned = typeClass(ty) == TypeClass::Signed; break;
    case CmpOp::Lt: case CmpOp::Le: case CmpOp::Gt: case CmpOp::Ge:
      if (typeClass(ty) == TypeClass::Bit) return std::nullopt;
      t.isSigned = typeClass(ty) == TypeClass::Signed;
      break;
    case CmpOp::Lo: case CmpOp::Ls: case CmpOp::Hi: case CmpOp::Hs: t.isSigned = false; break;
    default: return std::nullopt;  // float-only comparisons
  }
  // The constant as the comparison reads it.
  t.bits = typeBits(ty);
  t.raw = t.bits == 16 ? uint32_t(uint16_t(c.value)) : uint32_t(c.value);
  t.c = valueOf(t.raw, t.bits, t.isSigned);
  if (!readBitTest(b, root, real, t)) {
    if (!root && real.size() > 3) return std::nullopt;
    if (!root && real.size() == 3 && !readOffset(real[0], t)) return std::nullopt;
  }
  BasicBlock* taken = b->successor(EdgeKind::Taken);
  BasicBlock* fall = b->successor(EdgeKind::FallThrough);
  if (!taken || !fall) return std::nullopt;
  // A root compare of a 32-bit register that an and/rem just bounded: its domain.
  if (root && !t.bitTest && t.bits == 32) t.domainHi = domainOf(b, s, t.sel);
  bool takenWhenTrue = !br->guardNegated();
  t.ifTrue = takenWhenTrue ? taken : fall;
  t.ifFalse = takenWhenTrue ? fall : taken;
  return t;
}

// `add` (or `sub`) of a constant to a register, writing the register `t` compares (or indexes
// by) and as wide as `t` reads it: `t` then compares that register plus the constant. False
// for anything else, .sat and .cc included (not plain wrapping adds).
bool SwitchTreeReader::readOffset(Instruction* add, SwitchNode& t) {
  if ((!add->is(Opcode::Add) && !add->is(Opcode::Sub)) || add->hasGuard() || add->numOperands() != 3 ||
      typeBits(add->type(0)) != t.bits || typeClass(add->type(0)) == TypeClass::Float || add->mods().size() != 1)
    return false;
  const Operand &ad = add->operand(0), &ax = add->operand(1), &ak = add->operand(2);
  if (!ad.isReg() || static_cast<RegId>(ad.id) != t.sel || !ax.isReg() || ax.component() != Component::None ||
      !ak.isImm() || ax.id == ad.id)
    return false;
  t.add = add;
  t.tmp = t.sel;
  t.sel = static_cast<RegId>(ax.id);
  t.offset = uint32_t(add->is(Opcode::Add) ? ak.value : -ak.value);
  return true;
}

bool SwitchTreeReader::writes(const Instruction& i, RegId r) {
  bool w = false;
  i.forEachDefReg([&](RegId d) { w |= d == r; });
  return w;
}

// The latest instruction of `b` before `before` that writes `r` (null when none does).
Instruction* SwitchTreeReader::lastDefBefore(BasicBlock* b, const Instruction* before, RegId r) {
  Instruction* found = nullptr;
  for (Instruction* i : b->insts()) {
    if (i == before) break;
    if (writes(*i, r)) found = i;
  }
  return found;
}

// Reads a bit test into `t` (whose setp is read) and returns true, or returns false and
// leaves `t` as it was (the caller reads a plain compare of the register the setp reads,
// which is always exact). In an inner node every instruction of the block must belong to
// the test.
bool SwitchTreeReader::readBitTest(BasicBlock* b, bool root, const std::vector<Instruction*>& real, SwitchNode& t) const {
  if (t.bits != 32 || t.raw != 0 || (t.cmp != CmpOp::Eq && t.cmp != CmpOp::Ne)) return false;
  Instruction* andI = lastDefBefore(b, t.setp, t.sel);
  if (!andI || !andI->is(Opcode::And) || andI->hasGuard() || andI->numOperands() != 3 || typeBits(andI->type(0)) != 32)
    return false;
  const Operand *x = &andI->operand(1), *m = &andI->operand(2);
  if (x->isImm()) std::swap(x, m);
  if (!x->isReg() || x->component() != Component::None || !m->isImm()) return false;
  const RegId shifted = static_cast<RegId>(x->id);
  std::vector<Instruction*> mine{andI, t.setp, t.bra};  // the instructions of `b` the test uses
  std::vector<RegId> temps;
  // The shl: in this block before the and, or in an earlier node (checked when the tree is
  // gathered: it must be a node that dominates this one).
  Instruction* shl = lastDefBefore(b, andI, shifted);
  BasicBlock* shlBlock = b;
  if (!shl) {
    if (root) return false;
    for (BasicBlock* d : f_->blocks())
      for (Instruction* i : d->insts())
        if (writes(*i, shifted)) {
          if (shl) return false;  // written more than once
          shl = i;
          shlBlock = d;
        }
    if (!shl || shlBlock == b) return false;
  }
  if (!shl->is(Opcode::Shl) || shl->hasGuard() || shl->numOperands() != 3 || typeBits(shl->type(0)) != 32) return false;
  const Operand &one = shl->operand(1), &amount = shl->operand(2);
  if (!amount.isReg() || amount.component() != Component::None) return false;
  if (!one.isImm()) {
    Instruction* mov = one.isReg() && one.component() == Component::None ? lastDefBefore(shlBlock, shl, RegId(one.id)) : nullptr;
    if (!mov || !mov->is(Opcode::Mov) || mov->hasGuard() || mov->numOperands() != 2 || !mov->operand(1).isImm() ||
        mov->operand(1).value != 1)
      return false;
    if (shlBlock == b) mine.push_back(mov);
    temps.push_back(RegId(one.id));
  } else if (one.value != 1) {
    return false;
  }
  if (shlBlock == b) mine.push_back(shl);
  // The shift amount: the selector, or the selector plus a constant computed just before.
  SwitchNode probe;
  probe.bits = 32;
  probe.sel = static_cast<RegId>(amount.id);
  Instruction* add = lastDefBefore(shlBlock, shl, probe.sel);
  Instruction* firstRead = shl;  // where the test reads the selector
  if (add && readOffset(add, probe)) {
    if (shlBlock == b) mine.push_back(add);
    temps.push_back(probe.tmp);
    firstRead = add;
  } else if (add && shlBlock != b) {
    return false;  // an inner node whose shift amount some other instruction computes
  }
  // From the first read of the selector to the end of its block (where the tree's other
  // tests and the lowering read it) nothing may write the selector, the shl included.
  bool reading = false;
  for (Instruction* i : shlBlock->insts()) {
    if (i == firstRead) reading = true;
    if (reading && writes(*i, probe.sel)) return false;
  }
  if (!root && mine.size() != real.size()) return false;
  t.bitTest = true;
  t.bitMask = uint32_t(m->value);
  t.sel = probe.sel;
  t.offset = probe.offset;
  t.shlBlock = shlBlock == b ? nullptr : shlBlock;
  t.temps = std::move(temps);
  t.temps.push_back(shifted);
  t.temps.push_back(RegId(andI->operand(0).id));
  return true;
}

// The root's guarded bra: as conditionalBranch, except that `.branchtargets` tables may
// follow it (the parser keeps a table declared right after a branch in the branch's block,
// as in a range check followed by its brx.idx). They stay where they are.
Instruction* SwitchTreeReader::rootBranch(BasicBlock& b) {
  Instruction* t = b.terminator();
  if (!t || !t->is(Opcode::Bra) || !t->hasGuard() || b.succs().size() != 2) return nullptr;
  auto& insts = b.insts();
  for (auto it = std::find(insts.begin(), insts.end(), t) + 1; it != insts.end(); ++it)
    if (!(*it)->is(Opcode::BranchTargets)) return nullptr;
  return t;
}

// An inner block that only dispatches through `brx.idx` on a register, or on a register that
// an add (sub) of a constant just computed: a node with one successor per table entry.
std::optional<SwitchNode> SwitchTreeReader::brxAt(const std::vector<Instruction*>& real) const {
  if (real.size() > 2) return std::nullopt;
  Instruction* brx = real.back();
  if (brx->hasGuard() || !brx->operand(0).isReg() || brx->operand(0).component() != Component::None) return std::nullopt;
  SwitchNode t;
  t.bra = brx;
  t.bits = 32;
  t.isSigned = false;
  t.sel = static_cast<RegId>(brx->operand(0).id);
  if (real.size() == 2 && !readOffset(real[0], t)) return std::nullopt;
  for (uint32_t label : branchTargetLabels(*brx, *tables_)) t.entries.push_back(f_->labelBlock(label));
  if (t.entries.empty() || std::find(t.entries.begin(), t.entries.end(), nullptr) != t.entries.end()) return std::nullopt;
  return t;
}

// The largest value register `r` can hold before `at` in `b` when the last write of `r` before it
// there is an unguarded `and.b32 %r, %x, M` (M) or `rem.u32 %r, %x, K` (K - 1), with M and K
// immediates and at most INT32_MAX (signed and unsigned readings then agree); -1 otherwise.
int64_t SwitchTreeReader::domainOf(BasicBlock* b, const Instruction* at, RegId r) {
  Instruction* def = lastDefBefore(b, at, r);
  if (!def || def->hasGuard() || def->numOperands() != 3 || typeBits(def->type(0)) != 32 || !def->operand(2).isImm() ||
      !def->operand(1).isReg() || def->operand(1).component() != Component::None)
    return -1;
  int64_t hi = -1;
  uint32_t k = uint32_t(def->operand(2).value);
  if (def->is(Opcode::And) && typeClass(def->type(0)) != TypeClass::Float) hi = int64_t(k);
  else if (def->is(Opcode::Rem) && typeClass(def->type(0)) == TypeClass::Unsigned && k > 0) hi = int64_t(k) - 1;
  return hi <= INT32_MAX ? hi : -1;
}

// A root `brx.idx` whose index an unguarded `and.b32 %i, %x, M` or `rem.u32 %i, %x, K` (M, K
// immediates; the last write of %i before the brx.idx in its block) keeps within its table:
// a node on %i over the domain [0, M] or [0, K - 1].
std::optional<SwitchNode> SwitchTreeReader::rootBrxAt(BasicBlock* b, const std::vector<Instruction*>& real) const {
  Instruction* brx = real.back();
  if (b->terminator() != brx || brx->hasGuard() || !brx->operand(0).isReg() || brx->operand(0).component() != Component::None)
    return std::nullopt;
  RegId idx = static_cast<RegId>(brx->operand(0).id);
  int64_t hi = domainOf(b, brx, idx);
  if (hi < 0) return std::nullopt;
  SwitchNode t;
  t.bra = brx;
  t.bits = 32;
  t.isSigned = false;
  t.sel = idx;
  for (uint32_t label : branchTargetLabels(*brx, *tables_)) t.entries.push_back(f_->labelBlock(label));
  if (t.entries.empty() || std::find(t.entries.begin(), t.entries.end(), nullptr) != t.entries.end() || size_t(hi) >= t.entries.size())
    return std::nullopt;
  t.domainHi = hi;
  return t;
}

// The constant's bits as the comparison reads them.
int64_t valueOf(uint32_t raw, unsigned bits, bool isSigned) {
  if (bits == 16) return isSigned ? int64_t(int16_t(uint16_t(raw))) : int64_t(uint16_t(raw));
  return isSigned ? int64_t(int32_t(raw)) : int64_t(raw);
}

// Where the node sends selector value `v`: nullptr when a brx.idx index falls outside its
// table (behaviour PTX leaves undefined: such a tree is not lowered).
BasicBlock* SwitchTreeReader::next(const SwitchNode& t, int64_t v) const {
  if (t.isBrx()) {
    uint32_t idx = uint32_t(v) + t.offset;
    return idx < t.entries.size() ? skipJumps(t.entries[idx]) : nullptr;
  }
  return skipJumps(holds(t, v) ? t.ifTrue : t.ifFalse);
}

// Does the test hold for selector value `v` (read in the tree's domain)? The comparison
// reads the selector's bits plus the offset in its own signedness.
bool holds(const SwitchNode& t, int64_t v) {
  if (t.bitTest) {
    uint32_t amount = uint32_t(v) + t.offset;
    bool bit = amount < 32 && ((t.bitMask >> amount) & 1u);
    return t.cmp == CmpOp::Ne ? bit : !bit;
  }
  uint32_t mask = t.bits == 16 ? 0xffffu : 0xffffffffu;
  v = valueOf((uint32_t(v) + t.offset) & mask, t.bits, t.isSigned);
  switch (t.cmp) {
    case CmpOp::Eq: return v == t.c;
    case CmpOp::Ne: return v != t.c;
    case CmpOp::Lt: case CmpOp::Lo: return v < t.c;
    case CmpOp::Le: case CmpOp::Ls: return v <= t.c;
    case CmpOp::Gt: case CmpOp::Hi: return v > t.c;
    case CmpOp::Ge: case CmpOp::Hs: return v >= t.c;
    default: return false;
  }
}

// Looks through blocks that only jump or are empty.
BasicBlock* SwitchTreeReader::skipJumps(BasicBlock* b) const {
  for (int guard = 0; guard < 16 && b; ++guard) {
    bool onlyJump = true;
    for (Instruction* i : b->insts())
      if (!i->info().isPseudo() && !(i == b->terminator() && i->is(Opcode::Bra) && !i->hasGuard())) onlyJump = false;
    if (!onlyJump || b->succs().size() != 1) return b;
    if (b->hasLabel() && pinned_->count(f_->labelName(b->label()))) return b;
    b = b->succs()[0].to;
  }
  return b;
}

}  // namespace ptxopt::switchopt
