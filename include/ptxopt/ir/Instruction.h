// One PTX instruction (or one pseudo statement of a body: scope brace, nested declaration,
// pragma, branch-target table, call prototype).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ptxopt/ir/Opcode.h"
#include "ptxopt/ir/Operand.h"
#include "ptxopt/ir/Signature.h"
#include "ptxopt/ir/Types.h"
#include "ptxopt/support/Diagnostics.h"
#include "ptxopt/support/InlineVec.h"

namespace ptxopt {

class BasicBlock;

class Instruction {
 public:
  explicit Instruction(Opcode op) : op_(op) {}

  Opcode opcode() const { return op_; }
  const OpcodeInfo& info() const { return opcodeInfo(op_); }
  bool is(Opcode op) const { return op_ == op; }

  // Guard predicate `@%p` / `@!%p`.
  bool hasGuard() const { return guard_ != kNoReg; }
  RegId guard() const { return guard_; }
  bool guardNegated() const { return guardNeg_; }
  void setGuard(RegId r, bool negated) {
    guard_ = r;
    guardNeg_ = negated && r != kNoReg;
  }
  void clearGuard() { setGuard(kNoReg, false); }

  // Modifiers, in the order written.
  const InlineVec<Mod, 4>& mods() const { return mods_; }
  void addMod(Mod m) { mods_.push_back(m); }
  bool has(Mod m) const;
  // Replaces the first modifier for which `match` holds, or appends `m`.
  template <typename Pred>
  void replaceMod(Pred match, Mod m) {
    for (Mod& x : mods_)
      if (match(x)) {
        x = m;
        return;
      }
    mods_.push_back(m);
  }
  void removeMod(Mod m);
  // The n-th type modifier (cvt.f32.s32: type(0) = .f32, type(1) = .s32); None when absent.
  ScalarType type(unsigned n = 0) const;
  StateSpace space() const;  // Generic when no state-space modifier is present
  std::optional<CmpOp> cmp() const;
  std::optional<Rounding> rounding() const;
  // Vector width from .v2/.v4/.v8; 1 when absent.
  unsigned vectorWidth() const;

  // Operands. Composite operands ({a,b}, a|b, (a,b), [t,{c}]) keep their elements apart;
  // elements(op) gives them. At most 255 operands.
  uint32_t numOperands() const { return numOps_; }
  const Operand& operand(uint32_t i) const { return ops_[i]; }
  Operand& operand(uint32_t i) { return ops_[i]; }
  std::span<const Operand> operands() const { return {ops_.begin(), numOps_}; }
  std::span<Operand> operands() { return {ops_.begin(), numOps_}; }
  std::span<const Operand> elements(const Operand& composite) const {
    return {ops_.begin() + numOps_ + composite.id, composite.aux};
  }
  std::span<Operand> elements(const Operand& composite) {
    return {ops_.begin() + numOps_ + composite.id, composite.aux};
  }
  void addOperand(const Operand& o) {
    ops_.insert(numOps_, o);
    ++numOps_;
  }
  void setOperand(uint32_t i, const Operand& o) { ops_[i] = o; }
  // The elements of a removed composite stay behind, unreferenced.
  void removeOperand(uint32_t i) {
    ops_.erase(i);
    --numOps_;
  }
  // Adds a composite operand of `kind` whose elements are `elems` (which may themselves be
  // composites built with makeComposite).
  void addComposite(OperandKind kind, std::span<const Operand> elems) {
    addOperand(makeComposite(kind, elems));
  }
  Operand makeComposite(OperandKind kind, std::span<const Operand> elems);

  // Calls f(Operand&) for every leaf operand (composites expanded, recursively), in order.
  template <typename F>
  void forEachLeaf(F&& f) {
    for (Operand& o : operands()) visitLeaves(o, f);
  }
  template <typename F>
  void forEachLeaf(F&& f) const {
    for (const Operand& o : operands()) visitLeaves(o, f);
  }
  template <typename F>
  void visitLeaves(const Operand& o, F&& f) const {
    if (o.isComposite())
      for (const Operand& e : elements(o)) visitLeaves(e, f);
    else
      f(o);
  }
  template <typename F>
  void visitLeaves(Operand& o, F&& f) {
    if (o.isComposite())
      for (Operand& e : elements(o)) visitLeaves(e, f);
    else
      f(o);
  }

  // Which operands this instruction writes (its signature in Opcodes.def): the number of
  // leading operands that are results, 0 or 1.
  unsigned numDefOperands() const {
    if (numOps_ == 0) return 0;
    const Signature& sig = signatureOf(op_);
    if (sig.form == SignatureForm::Shapes && sig.fixedDefs != Signature::kDefsVary) return sig.fixedDefs;
    return numDefOperandsSlow(sig);
  }
  // Whether a written first operand is read as well (free-form opaque instructions).
  bool firstOperandAlsoRead() const {
    SignatureForm f = signatureOf(op_).form;
    return f == SignatureForm::FreeFirstMaybeDef || f == SignatureForm::FreeFirstReadWrite;
  }
  // Registers written and read. A guard counts as a read. For opaque instructions the
  // possibly-written first operand is reported both as written and read. A `ret` reads the
  // function's `.reg` return parameters (the caller receives them).
  template <typename F>
  void forEachDefReg(F&& f) const {
    if (numDefOperands() == 0) return;
    visitLeaves(ops_[0], [&](const Operand& o) {
      if (o.isReg()) f(static_cast<RegId>(o.id));
    });
  }
  template <typename F>
  void forEachUseReg(F&& f) const {
    if (hasGuard()) f(guard_);
    if (op_ == Opcode::Ret)
      for (RegId r : returnRegisters()) f(r);
    bool readsFirst = numDefOperands() == 0 || firstOperandAlsoRead();
    for (uint32_t i = readsFirst ? 0 : 1; i < numOps_; ++i)
      visitLeaves(ops_[i], [&](const Operand& o) {
        if (o.isReg() || (o.kind == OperandKind::Address && o.addressBase() == AddressBase::Reg))
          f(static_cast<RegId>(o.id));
      });
  }

  // The opcode table's side effects, refined by modifiers: volatile, acquire/release and mmio
  // memory operations, and `.cc` instructions (they set the carry flag a later addc/subc/madc
  // reads) are side effects too.
  bool hasSideEffects() const;
  // The opcode table's Speculatable, refined by modifiers: a `.cc` instruction writes the
  // carry flag, which a later addc/subc/madc may read.
  bool isSpeculatable() const;
  // The same operation on the same operands: opcode, modifiers, payload and every operand
  // (composites element by element); the guards are not compared.
  bool sameOperation(const Instruction& o) const;

  // The memory-model strength of a memory instruction, from its modifiers (the one list of
  // them): Weak (no qualifier), Relaxed (`.relaxed`: strong, but orders nothing else), or
  // Ordering (`.volatile`, `.acquire`, `.release`, `.acq_rel`, `.mmio`). Strong accesses
  // (Relaxed and Ordering) do not race with each other; Ordering ones are side effects.
  enum class MemoryStrength : uint8_t { Weak, Relaxed, Ordering };
  MemoryStrength memoryStrength() const;

  SourceLoc loc() const { return loc_; }
  void setLoc(SourceLoc l) { loc_ = l; }
  // 1-based index into the function's groups of .loc lines; 0 = none.
  uint32_t debugLoc() const { return dbg_; }
  void setDebugLoc(uint32_t d) { dbg_ = d; }
  // Payload of pseudo statements and of Unknown instructions (their mnemonic's first
  // component, a string-pool id): decl index, pragma text, table or prototype name.
  uint32_t payload() const { return payload_; }
  void setPayload(uint32_t p) { payload_ = p; }

  // The `.reg` return parameters of the function this instruction is in (none outside one).
  std::vector<RegId> returnRegisters() const;
  BasicBlock* parent() const { return parent_; }
  void setParent(BasicBlock* b) { parent_ = b; }

 private:
  unsigned numDefOperandsSlow(const Signature& sig) const;
  Opcode op_;
  bool guardNeg_ = false;
  RegId guard_ = kNoReg;
  InlineVec<Mod, 4> mods_;
  uint8_t numOps_ = 0;
  // The operands, then the elements of composite operands (a composite's id is the offset
  // of its first element from the end of the operands).
  InlineVec<Operand, 3> ops_;
  SourceLoc loc_;
  uint32_t dbg_ = 0;
  uint32_t payload_ = 0;
  BasicBlock* parent_ = nullptr;
};

}  // namespace ptxopt
