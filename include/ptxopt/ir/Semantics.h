// Exact meanings shared by the passes that fold constants and the emulator: comparisons of
// seed 002 (signed, unsigned, bit-size; ordered, unordered, num, nan).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

#include "ptxopt/ir/Operand.h"
#include "ptxopt/ir/Types.h"

namespace ptxopt {

// Integer and bit-size comparison of two values already truncated (and, for signed types,
// sign-extended) to the type's width. Inline: the emulator instantiates it per operator.
inline bool compareInt(CmpOp op, bool isSigned, uint64_t a, uint64_t b) {
  int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  switch (op) {
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
    case CmpOp::Lt: return isSigned ? sa < sb : a < b;
    case CmpOp::Le: return isSigned ? sa <= sb : a <= b;
    case CmpOp::Gt: return isSigned ? sa > sb : a > b;
    case CmpOp::Ge: return isSigned ? sa >= sb : a >= b;
    case CmpOp::Lo: return a < b;
    case CmpOp::Ls: return a <= b;
    case CmpOp::Hi: return a > b;
    case CmpOp::Hs: return a >= b;
    default: return false;
  }
}

// Floating-point comparison with the PTX rules for NaN.
inline bool compareFloat(CmpOp op, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (op) {
    case CmpOp::Eq: return !unordered && a == b;
    case CmpOp::Ne: return !unordered && a != b;
    case CmpOp::Lt: return !unordered && a < b;
    case CmpOp::Le: return !unordered && a <= b;
    case CmpOp::Gt: return !unordered && a > b;
    case CmpOp::Ge: return !unordered && a >= b;
    case CmpOp::Equ: return unordered || a == b;
    case CmpOp::Neu: return unordered || a != b;
    case CmpOp::Ltu: return unordered || a < b;
    case CmpOp::Leu: return unordered || a <= b;
    case CmpOp::Gtu: return unordered || a > b;
    case CmpOp::Geu: return unordered || a >= b;
    case CmpOp::Num: return !unordered;
    case CmpOp::Nan: return unordered;
    default: return false;
  }
}

// Is `op` valid for the type class (lo/ls/hi/hs for unsigned and bit, equ... for floats)?
bool isValidCompare(CmpOp op, TypeClass cls);

// The value of an immediate operand read as `type`: integers truncated and sign-extended as
// the type says; floats (0f/0d bit patterns and decimal literals) as double. nullopt when the
// operand is not an immediate or the type is not supported (.f16 and friends).
std::optional<uint64_t> immediateAsInt(const Operand& o, ScalarType type);
std::optional<double> immediateAsFloat(const Operand& o, ScalarType type);

// `setp.CMP.TYPE p, a, b` with two immediates, or with the same register twice where the
// result does not depend on its value (x == x for integers; x < x; x equ x ...).
std::optional<bool> foldCompare(CmpOp op, ScalarType type, const Operand& a, const Operand& b);

}  // namespace ptxopt
