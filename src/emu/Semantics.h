// Per-lane semantics of the emulator's arithmetic, logic and conversion instructions.
// Registers hold 64-bit containers: integers zero-extended from their width (signed loads are
// sign-extended), floats as their bit patterns, predicates as 0 or 1.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "FloatOps.h"
#include "Program.h"
#include "ptxopt/ir/Semantics.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {

constexpr uint64_t widthMask(unsigned bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
inline bool isSignedType(ScalarType t) { return typeClass(t) == TypeClass::Signed; }
inline int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t(1) << (bits - 1);
  v &= widthMask(bits);
  return static_cast<int64_t>((v ^ m) - m);
}

// Flush a float subnormal to a zero of the same sign (.ftz).
inline float flushF(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

// PTX min/max of floats: a NaN operand yields the other; two NaNs yield the canonical NaN;
// -0.0 is smaller than +0.0.
template <typename F>
F floatMinMax(F a, F b, bool isMax, bool propagateNaN) {
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (propagateNaN || (na && nb)) return std::numeric_limits<F>::quiet_NaN();
    return na ? b : a;
  }
  if (a == b && a == 0) {
    bool negA = std::signbit(a);
    if (isMax) return negA ? b : a;
    return negA ? a : b;
  }
  return isMax ? (a > b ? a : b) : (a < b ? a : b);
}

// The canonical NaN the hardware produces for f32 min/max of two NaNs.
inline uint32_t canonicalNaN32() { return 0x7FFFFFFFu; }
inline uint64_t canonicalNaN64() { return 0x7FFFFFFFFFFFFFFFull; }

// .sat and .relu on an f16 or bf16 result (bits): .sat clamps to [0, 1] with NaN to +0; .relu
// turns negatives into +0 and any NaN into the canonical NaN 0x7fff.
inline uint16_t halfSatRelu(uint16_t v, bool bf, bool sat, bool relu) {
  const unsigned manBits = bf ? 7 : 10;
  const uint16_t expMask = static_cast<uint16_t>((bf ? 0xFF : 0x1F) << manBits);
  const bool nan = (v & expMask) == expMask && (v & ((1u << manBits) - 1)) != 0;
  const uint16_t one = bf ? 0x3F80 : 0x3C00;
  if (sat) {
    if (nan || (v & 0x8000)) return 0;
    if ((v & 0x7FFF) > one) return one;  // positive values order as their bits
  }
  if (relu) {
    if (nan) return 0x7FFF;
    if (v & 0x8000) return 0;
  }
  return v;
}

// Value of a register container read as a double (f16/bf16/f32/f64), and written back.
inline double readFloat(uint64_t v, ScalarType t) {
  switch (t) {
    case ScalarType::F32: return bitsFloat(static_cast<uint32_t>(v));
    case ScalarType::F64: return bitsDouble(v);
    case ScalarType::F16: return halfToDouble(static_cast<uint16_t>(v));
    case ScalarType::BF16: return bfloat16ToDouble(static_cast<uint16_t>(v));
    default: return bitsDouble(v);
  }
}

}  // namespace ptxopt::emu
