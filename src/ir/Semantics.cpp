#include "ptxopt/ir/Semantics.h"

#include <cmath>

#include "ptxopt/support/FloatBits.h"

namespace ptxopt {

bool isValidCompare(CmpOp op, TypeClass cls) {
  switch (cls) {
    case TypeClass::Float: return op != CmpOp::Lo && op != CmpOp::Ls && op != CmpOp::Hi && op != CmpOp::Hs;
    case TypeClass::Signed: return op <= CmpOp::Ge;
    case TypeClass::Unsigned: return op <= CmpOp::Hs;
    case TypeClass::Bit: return op == CmpOp::Eq || op == CmpOp::Ne;
    default: return false;
  }
}

std::optional<uint64_t> immediateAsInt(const Operand& o, ScalarType type) {
  if (o.kind != OperandKind::Imm) return std::nullopt;
  TypeClass cls = typeClass(type);
  if (cls != TypeClass::Signed && cls != TypeClass::Unsigned && cls != TypeClass::Bit) return std::nullopt;
  unsigned bits = typeBits(type);
  uint64_t v = static_cast<uint64_t>(o.value);
  if (bits < 64) {
    v &= (uint64_t(1) << bits) - 1;
    if (cls == TypeClass::Signed && (v >> (bits - 1)) & 1) v |= ~((uint64_t(1) << bits) - 1);
  }
  return v;
}

std::optional<double> immediateAsFloat(const Operand& o, ScalarType type) {
  if (o.kind != OperandKind::FImm || (type != ScalarType::F32 && type != ScalarType::F64)) return std::nullopt;
  uint64_t bits = static_cast<uint64_t>(o.value);
  double d;
  switch (static_cast<FloatForm>(o.aux)) {
    case FloatForm::F32Hex: d = bitsFloat(static_cast<uint32_t>(bits)); break;
    case FloatForm::F64Hex:
    case FloatForm::Decimal: d = bitsDouble(bits); break;
    default: return std::nullopt;
  }
  if (type == ScalarType::F32) d = static_cast<float>(d);  // the literal as the instruction reads it
  return d;
}

std::optional<bool> foldCompare(CmpOp op, ScalarType type, const Operand& a, const Operand& b) {
  TypeClass cls = typeClass(type);
  if (!isValidCompare(op, cls)) return std::nullopt;
  if (a.isReg() && b.isReg() && a.id == b.id && a.component() == b.component() && !a.negated() && !b.negated()) {
    if (cls != TypeClass::Float) {
      switch (op) {
        case CmpOp::Eq:
        case CmpOp::Le:
        case CmpOp::Ge:
        case CmpOp::Ls:
        case CmpOp::Hs: return true;
        default: return false;
      }
    }
    // x op x for floats: ordered <, >, != are false even for NaN; unordered <=, >=, == are
    // true even for NaN; the rest depend on whether x is NaN.
    switch (op) {
      case CmpOp::Lt:
      case CmpOp::Gt:
      case CmpOp::Ne: return false;
      case CmpOp::Equ:
      case CmpOp::Leu:
      case CmpOp::Geu: return true;
      default: return std::nullopt;
    }
  }
  if (cls == TypeClass::Float) {
    auto x = immediateAsFloat(a, type), y = immediateAsFloat(b, type);
    if (!x || !y) return std::nullopt;
    return compareFloat(op, *x, *y);
  }
  auto x = immediateAsInt(a, type), y = immediateAsInt(b, type);
  if (!x || !y) return std::nullopt;
  return compareInt(op, cls == TypeClass::Signed, *x, *y);
}

}  // namespace ptxopt
