// The decoder that turns a module's IR into the emulator's flat form (Program.h): one class,
// its definitions split by family over Decode.cpp (functions, operands, arithmetic, memory,
// control), DecodeAsync.cpp (cp.async, mbarrier, bulk and tensor copies, mapa),
// DecodeTexture.cpp (tex, tld4, suld, sust) and DecodeMatrix.cpp (tensor cores). Internal to
// src/emu.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "Kernels.h"
#include "Program.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu::decoding {

inline uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

inline uint64_t naturalAlign(const Variable& v) {
  if (v.align) return v.align;
  uint64_t e = std::max<uint64_t>(1, typeBits(v.type) / 8);
  if (v.vec) e *= v.vec;
  return e;
}

// What the emulator does with each opcode: a family and, for arithmetic and logic, the
// sub-operation. Opcodes not listed are not emulated.
enum class Family : uint8_t {
  None, Move, Arith, Bit, Sad, Dp, Video, Compare, Select, Slct, Convert, Cvta, Isspacep, Load, Store, Atomic,
  Branch, BranchIndexed, Call, Return, Exit, Trap, Barrier, WarpSync, Shuffle, Vote, Match, Redux, Activemask, Nop, Texture, Surface, Matrix,
  Elect, Mapa, TensorMap,
};
struct OpDecode {
  Family family = Family::None;
  uint8_t sub = 0;  // ArithOp or BitOp
};

struct MatrixQualifiers;

class Decoder {
 public:
  Decoder(const Module& m, Program& p) : m_(m), p_(p) {}

  bool run(std::string& error) {
    p_.module = &m_;
    p_.fileName = m_.fileName;
    layoutModuleVariables();
    for (const auto& f : m_.functions())
      if (f->hasBody) {
        p_.functionIndex[std::string(f->name())] = static_cast<uint32_t>(p_.functions.size());
        p_.functions.emplace_back();
        p_.functions.back().ir = f.get();
        p_.functions.back().name = std::string(f->name());
      }
    // Shared declarations inside functions are CTA-wide, like module-level ones.
    for (DFunction& df : p_.functions)
      for (const Decl& d : df.ir->decls())
        if (d.kind == Decl::Kind::Var && isSharedSpace(d.var.space) && !(d.var.linkage & Linkage::Extern)) {
          if (d.var.dims.size() == 1 && d.var.dims[0] < 0) continue;
          p_.staticSharedBytes = alignUp(p_.staticSharedBytes, naturalAlign(d.var));
          functionShared_[&d.var] = p_.staticSharedBytes;
          p_.staticSharedBytes += d.var.sizeInBytes();
        }
    // .global and .const declarations inside functions (switch-opt's value tables) are laid
    // out like module-level ones; only the function sees their names.
    for (DFunction& df : p_.functions)
      for (const Decl& d : df.ir->decls())
        if (d.kind == Decl::Kind::Var && !(d.var.linkage & Linkage::Extern) &&
            (d.var.space == StateSpace::Global || d.var.space == StateSpace::Const))
          functionVars_[&d.var] = layoutVariable(d.var, df.name + "." + std::string(m_.str(d.var.name)));
    p_.dynamicSharedOffset = alignUp(p_.staticSharedBytes, 16);
    for (DFunction& df : p_.functions)
      if (!decodeFunction(df, error)) return false;
    return true;
  }

 private:
  // Memory for a .global or .const variable: a global allocation per run, or a place in the
  // constant image with the initializer written.
  SymRef layoutVariable(const Variable& v, const std::string& name) {
    if (v.space == StateSpace::Global) {
      DGlobal g;
      g.var = &v;
      g.name = name;
      g.size = std::max<uint64_t>(v.sizeInBytes(), 1);
      g.align = naturalAlign(v);
      for (uint32_t a : v.attributes) g.managed |= m_.str(a) == ".managed";
      p_.globals.push_back(g);
      return SymRef{SymRef::Kind::GlobalVar, static_cast<uint32_t>(p_.globals.size() - 1), 0};
    }
    uint64_t off = alignUp(p_.constImage.size(), naturalAlign(v));
    p_.constImage.resize(off + v.sizeInBytes(), 0);
    writeInitializer(v, p_.constImage.data() + off, v.sizeInBytes());
    p_.consts.push_back(DConst{&v, name, off, v.sizeInBytes()});
    return SymRef{SymRef::Kind::ConstVar, 0, off};
  }

  void layoutModuleVariables() {
    for (const Variable& v : m_.globals()) {
      std::string name(m_.str(v.name));
      if (v.space == StateSpace::Global || v.space == StateSpace::Const) {
        moduleSyms_[name] = layoutVariable(v, name);
      } else if (isSharedSpace(v.space)) {
        if ((v.linkage & Linkage::Extern) || (v.dims.size() == 1 && v.dims[0] < 0)) {
          moduleSyms_[name] = SymRef{SymRef::Kind::SharedVar, 1, 0};  // index 1: dynamic
        } else {
          p_.staticSharedBytes = alignUp(p_.staticSharedBytes, naturalAlign(v));
          moduleSyms_[name] = SymRef{SymRef::Kind::SharedVar, 0, p_.staticSharedBytes};
          p_.staticSharedBytes += v.sizeInBytes();
        }
      }
    }
  }

 public:
  // Writes the numeric part of an initializer (addresses of symbols are written when the
  // variables are placed in memory: placeModuleVariables).
  static void writeInitializer(const Variable& v, uint8_t* out, uint64_t size) {
    if (!v.hasInit) return;
    uint64_t elem = std::max<uint64_t>(1, typeBits(v.type) / 8);
    uint64_t pos = 0;
    for (const InitItem& it : v.init) {
      if (it.kind == InitItem::Kind::Open || it.kind == InitItem::Kind::Close) continue;
      if (pos + elem > size) break;
      uint64_t bits = 0;
      if (it.kind == InitItem::Kind::Int || it.kind == InitItem::Kind::Float)
        bits = literalBits(it.kind == InitItem::Kind::Float, static_cast<uint64_t>(it.value), static_cast<FloatForm>(it.flags), v.type);
      std::memcpy(out + pos, &bits, elem);
      pos += elem;
    }
  }

 private:
  uint32_t constSlot(DFunction& f, uint64_t value) {
    auto [it, inserted] = constSlots_.emplace(value, 0);
    if (inserted) {
      it->second = f.numRegs + static_cast<uint32_t>(f.constValues.size());
      f.constValues.push_back(value);
    }
    return it->second;
  }

  uint32_t specialSlot(DFunction& f, const Operand& o) {
    for (size_t k = 0; k < f.specials.size(); ++k) {
      const auto& s = f.specials[k];
      if (s.reg == static_cast<SpecialReg>(o.id) && s.comp == o.component() && s.number == static_cast<uint32_t>(o.value))
        return kSpecialBase + static_cast<uint32_t>(k);
    }
    // Specials get slots after the constants: assigned when the function is complete.
    f.specials.push_back({static_cast<SpecialReg>(o.id), o.component(), static_cast<uint32_t>(o.value), 0});
    return kSpecialBase + static_cast<uint32_t>(f.specials.size() - 1);
  }

  // The 64-bit pattern a literal stands for where a value of type `t` is read: an integer
  // literal (converted when `t` is a float type) or a float literal (0f/0d bits or decimal;
  // kept bit for bit where its width is the type's). Operands and initializers both use it.
  static uint64_t literalBits(bool isFloat, uint64_t raw, FloatForm form, ScalarType t) {
    if (!isFloat) {
      if (typeClass(t) == TypeClass::Float) {
        double d = static_cast<double>(static_cast<int64_t>(raw));
        if (t == ScalarType::F32) return floatBits(static_cast<float>(d));
        if (t == ScalarType::F64) return doubleBits(d);
        if (t == ScalarType::F16) return doubleToHalf(d);
        if (t == ScalarType::BF16) return doubleToBFloat16(d);
      }
      return raw;
    }
    if (form == FloatForm::F32Hex && (t == ScalarType::F32 || typeBits(t) == 32)) return raw & 0xFFFFFFFFu;
    if (form == FloatForm::F64Hex && (t == ScalarType::F64 || typeBits(t) == 64)) return raw;
    double d = form == FloatForm::F32Hex ? bitsFloat(static_cast<uint32_t>(raw)) : bitsDouble(raw);
    switch (t) {
      case ScalarType::F32: return floatBits(static_cast<float>(d));
      case ScalarType::F16: return doubleToHalf(d);
      case ScalarType::BF16: return doubleToBFloat16(d);
      default: return doubleBits(d);
    }
  }
  static uint64_t immediateBits(const Operand& o, ScalarType t) {
    return literalBits(o.kind == OperandKind::FImm, static_cast<uint64_t>(o.value), static_cast<FloatForm>(o.aux), t);
  }

  // The slot an operand reads, for an operand of type `t`.
  bool srcSlot(DFunction& f, const Operand& o, ScalarType t, uint32_t& slot) {
    switch (o.kind) {
      case OperandKind::Reg:
        if (o.component() != Component::None) return fail("vector register components are not supported");
        slot = o.id;
        return true;
      case OperandKind::Imm:
      case OperandKind::FImm: slot = constSlot(f, immediateBits(o, t)); return true;
      case OperandKind::Special: slot = specialSlot(f, o); return true;
      case OperandKind::Sink: slot = kSinkSlot; return true;
      default: break;
    }
    return fail("unsupported operand");
  }

  bool dstSlot(const Operand& o, uint32_t& slot) {
    if (o.kind == OperandKind::Sink) {
      slot = kSinkSlot;
      return true;
    }
    if (o.kind != OperandKind::Reg || o.component() != Component::None) return fail("unsupported destination");
    slot = o.id;
    return true;
  }

  // Decoding problems become Unsupported instructions that fault when executed.
  bool fail(const std::string& why) {
    unsupportedWhy_ = why;
    return false;
  }
  // Likewise an instruction that is not valid PTX (ptxas rejects it): listed and faulting as
  // invalid rather than unsupported.
  bool invalid(const std::string& why) {
    unsupportedInvalid_ = true;
    return fail(why);
  }

  // Symbols visible from an instruction: nested .param/.local/.shared declarations by scope,
  // then the function's own declarations and parameters, then the module's variables.
  SymRef resolveSymbol(uint32_t nameId) {
    auto it = scoped_.find(nameId);
    if (it != scoped_.end() && !it->second.empty()) return it->second.back();
    auto fit = functionSyms_.find(nameId);
    if (fit != functionSyms_.end()) return fit->second;
    std::string name(m_.str(nameId));
    auto mit = moduleSyms_.find(name);
    if (mit != moduleSyms_.end()) return mit->second;
    auto fn = p_.functionIndex.find(name);
    if (fn != p_.functionIndex.end()) return SymRef{SymRef::Kind::Function, fn->second, 0};
    return SymRef{};
  }

  void bindDecl(DFunction& f, const Decl& d, bool nested) {
    if (d.kind != Decl::Kind::Var) return;
    const Variable& v = d.var;
    SymRef ref;
    if (v.space == StateSpace::Local) {
      f.localBytes = alignUp(f.localBytes, std::max<uint64_t>(naturalAlign(v), 8));
      ref = SymRef{SymRef::Kind::LocalVar, 0, f.localBytes};
      f.localBytes += v.sizeInBytes();
    } else if (isParamSpace(v.space)) {
      f.paramBytes = alignUp(f.paramBytes, std::max<uint64_t>(naturalAlign(v), 8));
      ref = SymRef{SymRef::Kind::FrameParam, 0, f.paramBytes};
      f.paramBytes += std::max<uint64_t>(v.sizeInBytes(), 1);
    } else if (isSharedSpace(v.space)) {
      auto it = functionShared_.find(&v);
      ref = it != functionShared_.end() ? SymRef{SymRef::Kind::SharedVar, 0, it->second} : SymRef{SymRef::Kind::SharedVar, 1, 0};
    } else if (auto it = functionVars_.find(&v); it != functionVars_.end()) {
      ref = it->second;
    } else {
      return;  // extern declarations of other spaces
    }
    if (nested)
      scoped_[v.name].push_back(ref);
    else
      functionSyms_[v.name] = ref;
  }

  bool decodeFunction(DFunction& f, std::string& error);
  bool decodeInstruction(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeOperands(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMove(const Instruction& inst, DInst& di);
  bool decodeArith(const Instruction& inst, ArithOp op, DInst& di);
  bool decodeBit(const Instruction& inst, BitOp op, DInst& di);
  bool decodeCompare(const Instruction& inst, DInst& di);
  bool decodeVideo(const Instruction& inst, VideoOp op, DInst& di);
  bool decodeMemory(const Instruction& inst, Family family, DInst& di);
  bool decodeBarrier(const Instruction& inst, DInst& di);
  bool decodeWarp(const Instruction& inst, Family family, DInst& di);
  bool decodeAddress(const Operand& o, DInst& di);
  bool decodeAddress(const Operand& o, DAddress& a);
  bool decodeAsync(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMbarrier(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeBulk(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMapa(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeTensorCopy(DFunction& f, const Instruction& inst, DInst& di, const std::vector<StateSpace>& spaces, bool mbarrier, bool bulkGroup,
                        unsigned rank, bool tile, bool hint);
  bool decodeCall(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeTexture(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeSurface(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeQuery(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeTensormap(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMatrix(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMatrixMove(const Instruction& inst, MatrixQualifiers& q, DInst& di, DMatrixOp& op);
  bool decodeMma(const Instruction& inst, MatrixQualifiers& q, bool isWmma, DInst& di, DMatrixOp& op);
  bool decodeWmmaAccess(DFunction& f, const Instruction& inst, MatrixQualifiers& q, bool load, DInst& di, DMatrixOp& op);
  bool decodeWgmma(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeWgmmaMma(DFunction& f, const Instruction& inst, MatrixQualifiers& q, DMatrixOp& op);
  bool matrixRegisters(const Instruction& inst, const Operand& o, std::vector<uint32_t>& slots);

  static constexpr uint32_t kSpecialBase = 0x40000000u;
  static constexpr uint32_t kSinkSlot = 0x7FFFFFF0u;
  static constexpr uint32_t kCarrySlot = 0x7FFFFFF1u;

  const Module& m_;
  Program& p_;
  std::unordered_map<std::string, SymRef> moduleSyms_;
  std::unordered_map<const Variable*, uint64_t> functionShared_;
  std::unordered_map<const Variable*, SymRef> functionVars_;
  // per function
  std::unordered_map<uint32_t, SymRef> functionSyms_;
  std::unordered_map<uint32_t, std::vector<SymRef>> scoped_;
  std::map<uint64_t, uint32_t> constSlots_;
  std::string unsupportedWhy_;
  bool unsupportedInvalid_ = false;
};

}  // namespace ptxopt::emu::decoding
