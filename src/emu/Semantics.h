// Per-lane semantics of the emulator's data instructions: integer arithmetic, logic and bit
// manipulation, floating point (one definition for f32, f64, f16 and bf16, templated over the
// format), comparisons and conversions. Each is written once, here, and used by both the
// general loops and the specialized ones (Kernels.cpp): a specialized loop passes its form as
// constants, which the compiler folds.
//
// Registers hold 64-bit containers: integers zero-extended from their width (signed loads are
// sign-extended), floats as their bit patterns, predicates as 0 or 1.
#pragma once

#include <algorithm>
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

#define PTXOPT_LANE [[gnu::always_inline]] inline

constexpr uint64_t widthMask(unsigned bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
inline bool isSignedType(ScalarType t) { return typeClass(t) == TypeClass::Signed; }
PTXOPT_LANE int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t(1) << (bits - 1);
  v &= widthMask(bits);
  return static_cast<int64_t>((v ^ m) - m);
}

// Flush a float subnormal to a zero of the same sign (.ftz).
inline float flushF(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

// PTX min/max of floats: a NaN operand yields the other; two NaNs yield NaN; -0.0 is smaller
// than +0.0. With .NaN any NaN operand yields NaN.
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

// The canonical NaN: what the hardware produces for min/max of NaNs and for any NaN that
// arithmetic computes (floatLane).
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

// Value of a register container read as a double (f16/bf16/f32/f64).
inline double readFloat(uint64_t v, ScalarType t) {
  switch (t) {
    case ScalarType::F32: return bitsFloat(static_cast<uint32_t>(v));
    case ScalarType::F64: return bitsDouble(v);
    case ScalarType::F16: return halfToDouble(static_cast<uint16_t>(v));
    case ScalarType::BF16: return bfloat16ToDouble(static_cast<uint16_t>(v));
    default: return bitsDouble(v);
  }
}

// ---- integer arithmetic ----------------------------------------------------------------------

struct IntMods {
  bool sat = false, hi = false, wide = false, readsCarry = false, setsCarry = false;
};

inline uint64_t satSigned(__int128 v, unsigned bits) {
  __int128 lo = -(static_cast<__int128>(1) << (bits - 1)), hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  return static_cast<uint64_t>(std::clamp(v, lo, hi)) & widthMask(bits);
}

// `carry` is the lane's carry flag (read by addc/subc/madc, written by .cc); null when neither.
PTXOPT_LANE uint64_t intArithLane(ArithOp op, unsigned bits, bool sg, IntMods m, uint64_t a, uint64_t b, uint64_t c,
                                  uint64_t* carry) {
  const uint64_t mask = widthMask(bits);
  const uint64_t x = a & mask;
  auto sx = [&](uint64_t v) { return signExtend(v, bits); };
  const uint64_t cin = m.readsCarry ? *carry & 1 : 0;
  switch (op) {
    case ArithOp::Add: {
      uint64_t y = b & mask;
      unsigned __int128 full = static_cast<unsigned __int128>(x) + y + cin;
      if (m.setsCarry) *carry = static_cast<uint64_t>(full >> bits) & 1;
      if (m.sat && sg) return satSigned(static_cast<__int128>(sx(x)) + sx(y), bits);
      return static_cast<uint64_t>(full) & mask;
    }
    case ArithOp::Sub: {
      uint64_t y = b & mask;
      if (m.setsCarry) *carry = static_cast<unsigned __int128>(x) < static_cast<unsigned __int128>(y) + cin;
      if (m.sat && sg) return satSigned(static_cast<__int128>(sx(x)) - sx(y), bits);
      return (x - y - cin) & mask;
    }
    case ArithOp::Mul:
    case ArithOp::Mad: {
      uint64_t y = b & mask;
      if (m.wide) {
        uint64_t p = sg ? static_cast<uint64_t>(static_cast<__int128>(sx(x)) * static_cast<__int128>(sx(y))) : x * y;
        p &= widthMask(2 * bits);
        return op == ArithOp::Mad ? (p + c) & widthMask(2 * bits) : p;
      }
      uint64_t p = (x * y) & mask;
      if (m.hi)  // the high half of the full product
        p = (sg ? static_cast<uint64_t>((static_cast<__int128>(sx(x)) * sx(y)) >> bits)
                : static_cast<uint64_t>((static_cast<unsigned __int128>(x) * y) >> bits)) & mask;
      if (op == ArithOp::Mul) return p;
      uint64_t z = c & mask;
      unsigned __int128 full = static_cast<unsigned __int128>(p) + z + cin;
      if (m.setsCarry) *carry = static_cast<uint64_t>(full >> bits) & 1;
      if (m.sat && sg) return satSigned(static_cast<__int128>(sx(p)) + sx(z), bits);
      return static_cast<uint64_t>(full) & mask;
    }
    case ArithOp::Mul24:
    case ArithOp::Mad24: {
      int64_t xa = sg ? signExtend(x, 24) : static_cast<int64_t>(x & 0xFFFFFF);
      int64_t ya = sg ? signExtend(b, 24) : static_cast<int64_t>(b & 0xFFFFFF);
      uint64_t p = static_cast<uint64_t>(xa * ya);
      p = m.hi ? (p >> 16) & mask : p & mask;
      return op == ArithOp::Mad24 ? (p + c) & mask : p;
    }
    case ArithOp::Div: {
      uint64_t y = b & mask;
      if (y == 0) return mask;  // division by zero: all ones (the hardware leaves it unspecified)
      if (!sg) return x / y;
      int64_t sxv = sx(x), syv = sx(y);
      return (syv == -1 ? static_cast<uint64_t>(-sxv) : static_cast<uint64_t>(sxv / syv)) & mask;
    }
    case ArithOp::Rem: {
      uint64_t y = b & mask;
      if (y == 0) return x;  // remainder by zero: the dividend (unspecified in PTX)
      if (!sg) return x % y;
      int64_t sxv = sx(x), syv = sx(y);
      return syv == -1 ? 0 : static_cast<uint64_t>(sxv % syv) & mask;
    }
    case ArithOp::Abs: return static_cast<uint64_t>(sx(x) < 0 ? -sx(x) : sx(x)) & mask;
    case ArithOp::Neg: return (~x + 1) & mask;
    case ArithOp::Min: return sg ? (sx(x) < sx(b) ? x : b & mask) : std::min(x, b & mask);
    case ArithOp::Max: return sg ? (sx(x) > sx(b) ? x : b & mask) : std::max(x, b & mask);
    default: return 0;
  }
}

// sad: |a - b| + c.
PTXOPT_LANE uint64_t sadLane(unsigned bits, bool sg, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t diff;
  if (sg) {
    int64_t x = signExtend(a, bits), y = signExtend(b, bits);
    diff = x > y ? static_cast<uint64_t>(x - y) : static_cast<uint64_t>(y - x);
  } else {
    uint64_t x = a & widthMask(bits), y = b & widthMask(bits);
    diff = x > y ? x - y : y - x;
  }
  return (diff + c) & widthMask(bits);
}

// SIMD video (vop2, vop4, vset2, vset4): see DVideo. vavrg halves the sum rounding up when the
// sum is non-negative and down when it is negative; .sat clamps each result to the range of
// the destination's element type (the decoder refuses it with .add); vset's results are 1 or 0.
PTXOPT_LANE uint64_t videoLane(const DVideo& v, CmpOp cmp, bool sat, uint64_t a, uint64_t b, uint64_t c) {
  const unsigned bits = v.lanes == 4 ? 8 : 16;
  const uint64_t pair = (a & 0xFFFFFFFFu) | (b & 0xFFFFFFFFu) << 32;
  auto element = [&](unsigned index, bool sg) -> int64_t {
    const uint64_t raw = (pair >> (bits * index)) & widthMask(bits);
    return sg ? signExtend(raw, bits) : static_cast<int64_t>(raw);
  };
  const int64_t lo = v.signedD ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = v.signedD ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  uint64_t d = v.add ? c & 0xFFFFFFFFu : 0;
  for (unsigned i = 0; i < v.lanes; ++i) {
    const int64_t x = element(v.asel[i], v.signedA), y = element(v.bsel[i], v.signedB);
    int64_t t = 0;
    switch (v.op) {
      case VideoOp::Add: t = x + y; break;
      case VideoOp::Sub: t = x - y; break;
      case VideoOp::Avrg: t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1; break;
      case VideoOp::Absdiff: t = x > y ? x - y : y - x; break;
      case VideoOp::Min: t = std::min(x, y); break;
      case VideoOp::Max: t = std::max(x, y); break;
      case VideoOp::Set:
        switch (cmp) {
          case CmpOp::Eq: t = x == y; break;
          case CmpOp::Ne: t = x != y; break;
          case CmpOp::Lt: t = x < y; break;
          case CmpOp::Le: t = x <= y; break;
          case CmpOp::Gt: t = x > y; break;
          default: t = x >= y; break;  // .ge (the decoder admits no other)
        }
        break;
    }
    if (sat && v.op != VideoOp::Set) t = std::clamp(t, lo, hi);
    const bool on = (v.mask >> i) & 1;
    if (v.add) {
      if (on) d += static_cast<uint64_t>(t);
    } else {
      const uint64_t e = on ? static_cast<uint64_t>(t) : c >> (bits * i);
      d |= (e & widthMask(bits)) << (bits * i);
    }
  }
  return d & 0xFFFFFFFFu;
}

// dp4a (four byte products) and dp2a (two halfword by byte products, .lo or .hi bytes of b).
PTXOPT_LANE uint64_t dpLane(bool four, bool high, bool sa, bool sb, uint64_t a, uint64_t b, uint64_t c) {
  int64_t acc = (sa || sb) ? signExtend(c, 32) : static_cast<int64_t>(c & 0xFFFFFFFFu);
  if (four) {
    for (int k = 0; k < 4; ++k) {
      int64_t x = sa ? static_cast<int8_t>(a >> (8 * k)) : static_cast<uint8_t>(a >> (8 * k));
      int64_t y = sb ? static_cast<int8_t>(b >> (8 * k)) : static_cast<uint8_t>(b >> (8 * k));
      acc += x * y;
    }
  } else {
    for (int k = 0; k < 2; ++k) {
      int64_t x = sa ? static_cast<int16_t>(a >> (16 * k)) : static_cast<uint16_t>(a >> (16 * k));
      int byte = (high ? 2 : 0) + k;
      int64_t y = sb ? static_cast<int8_t>(b >> (8 * byte)) : static_cast<uint8_t>(b >> (8 * byte));
      acc += x * y;
    }
  }
  return static_cast<uint64_t>(acc) & 0xFFFFFFFFu;
}

// ---- logic and bit manipulation --------------------------------------------------------------

struct BitMods {
  uint8_t negMask = 0;  // negated (predicate) sources
  PrmtMode prmt = PrmtMode::Index;
  bool shiftLeft = false, clamp = false, shiftAmount = false;
};

// `bits` is 1 for predicates.
PTXOPT_LANE uint64_t bitLane(BitOp op, unsigned bits, bool sg, BitMods m, uint64_t a, uint64_t b, uint64_t c, uint64_t e) {
  const uint64_t mask = widthMask(bits);
  auto neg = [&](unsigned k, uint64_t v) { return (m.negMask >> k) & 1 ? (~v & mask) : v; };
  const uint64_t x = neg(0, a & mask);
  switch (op) {
    case BitOp::And: return x & neg(1, b & mask);
    case BitOp::Or: return x | neg(1, b & mask);
    case BitOp::Xor: return x ^ neg(1, b & mask);
    case BitOp::Not: return ~x & mask;
    case BitOp::Cnot: return x == 0 ? 1 : 0;
    case BitOp::Popc: return static_cast<uint64_t>(std::popcount(x));
    case BitOp::Clz:
      return bits == 32 ? static_cast<uint64_t>(std::countl_zero(static_cast<uint32_t>(x))) : static_cast<uint64_t>(std::countl_zero(x));
    case BitOp::Bfind: {
      int64_t pos = -1;
      if (sg) {
        uint64_t v = (x >> (bits - 1)) & 1 ? ~x & mask : x;  // the most significant non-sign bit
        if (v) pos = 63 - std::countl_zero(v);
      } else if (x) {
        pos = 63 - std::countl_zero(x);
      }
      if (pos < 0) return 0xFFFFFFFFu;
      return m.shiftAmount ? static_cast<uint64_t>(bits - 1 - pos) : static_cast<uint64_t>(pos);
    }
    case BitOp::Brev: {
      uint64_t v = 0;
      for (unsigned k = 0; k < bits; ++k) v |= ((x >> k) & 1) << (bits - 1 - k);
      return v;
    }
    case BitOp::Bfe: {
      unsigned pos = static_cast<unsigned>(b & 0xFF), len = static_cast<unsigned>(c & 0xFF);
      unsigned msb = pos + len - 1;
      bool sbit = sg ? (len == 0 ? false : ((x >> std::min(msb, bits - 1)) & 1)) : false;
      uint64_t v = 0;
      for (unsigned k = 0; k < bits; ++k) {
        bool bit = (k < len && pos + k < bits) ? ((x >> (pos + k)) & 1) : sbit;
        v |= static_cast<uint64_t>(bit) << k;
      }
      return v & mask;
    }
    case BitOp::Bfi: {
      unsigned pos = static_cast<unsigned>(c & 0xFF), len = static_cast<unsigned>(e & 0xFF);
      uint64_t v = b & mask;
      for (unsigned k = 0; k < len && pos + k < bits; ++k) v = (v & ~(uint64_t(1) << (pos + k))) | (((x >> k) & 1) << (pos + k));
      return v;
    }
    case BitOp::Prmt: {
      uint64_t y = b & 0xFFFFFFFFu, sel = c & 0xFFFFFFFFu;
      uint64_t bytesAll = (y << 32) | (x & 0xFFFFFFFFu);
      auto byteOf = [&](unsigned k) { return (bytesAll >> (8 * (k & 7))) & 0xFF; };
      uint64_t out = 0;
      if (m.prmt == PrmtMode::Index) {
        for (unsigned k = 0; k < 4; ++k) {
          unsigned s = static_cast<unsigned>(sel >> (4 * k)) & 0xF;
          uint64_t byte = byteOf(s & 7);
          if (s & 8) byte = (byte & 0x80) ? 0xFF : 0x00;  // replicate the sign
          out |= byte << (8 * k);
        }
        return out;
      }
      static const unsigned kModes[6][4][4] = {
          {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
          {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
          {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
          {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
          {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
          {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
      };
      unsigned s = static_cast<unsigned>(sel & 3), mode = static_cast<unsigned>(m.prmt) - 1;
      for (unsigned k = 0; k < 4; ++k) out |= byteOf(kModes[mode][s][k]) << (8 * k);
      return out;
    }
    case BitOp::Lop3: {
      uint64_t y = b & 0xFFFFFFFFu, z = c & 0xFFFFFFFFu, lut = e & 0xFF, out = 0;
      for (unsigned k = 0; k < 32; ++k) {
        unsigned idx = static_cast<unsigned>(((x >> k) & 1) << 2 | ((y >> k) & 1) << 1 | ((z >> k) & 1));
        out |= ((lut >> idx) & 1) << k;
      }
      return out;
    }
    case BitOp::Shf: {
      uint64_t lo = x & 0xFFFFFFFFu, hi = b & 0xFFFFFFFFu, n = c & 0xFFFFFFFFu;
      n = m.clamp ? std::min<uint64_t>(n, 32) : n & 31;
      uint64_t both = (hi << 32) | lo;
      return m.shiftLeft ? ((both << n) >> 32) & 0xFFFFFFFFu : (both >> n) & 0xFFFFFFFFu;
    }
    case BitOp::Shl: {
      uint64_t n = b & 0xFFFFFFFFu;  // shift amounts are unsigned 32-bit
      return n >= bits ? 0 : (x << n) & mask;
    }
    case BitOp::Shr: {
      uint64_t n = b & 0xFFFFFFFFu;
      if (!sg) return n >= bits ? 0 : x >> n;
      int64_t v = signExtend(x, bits);
      return static_cast<uint64_t>(n >= bits ? (v < 0 ? -1 : 0) : v >> n) & mask;
    }
    case BitOp::Bmsk: {
      uint64_t pos = x & 0xFFFFFFFFu, len = b & 0xFFFFFFFFu;
      if (m.clamp) {
        pos = std::min<uint64_t>(pos, 32);
        len = std::min<uint64_t>(len, 32);
      } else {
        pos &= 31;
        len &= 31;
      }
      uint64_t span = pos + len >= 32 ? 32 - pos : len;
      return (widthMask(static_cast<unsigned>(span)) << pos) & 0xFFFFFFFFu;
    }
    case BitOp::Szext: {
      uint64_t pos = b & 0xFFFFFFFFu;
      pos = m.clamp ? std::min<uint64_t>(pos, 32) : pos & 31;
      if (pos == 0) return 0;
      if (pos >= 32) return x & 0xFFFFFFFFu;
      return sg ? static_cast<uint64_t>(signExtend(x, static_cast<unsigned>(pos))) & 0xFFFFFFFFu
                : x & widthMask(static_cast<unsigned>(pos));
    }
  }
  return 0;
}

// mov: the value cut to the type's width (a predicate keeps its 0/1; '!' negates it).
PTXOPT_LANE uint64_t movLane(unsigned bits, bool negate, uint64_t a) { return negate ? (~a & 1) : a & widthMask(bits); }
PTXOPT_LANE uint64_t selpLane(bool negate, uint64_t a, uint64_t b, uint64_t c) { return ((c & 1) != negate) ? a : b; }

// ---- floating point: one definition over the formats -----------------------------------------

struct FloatMods {
  Rnd rnd = Rnd::Nearest;
  bool hasRounding = false, ftz = false, sat = false, relu = false, approx = false;
  MinMaxNaN nan = MinMaxNaN::Drop;
};

// A format: how its values are read, computed and written. Each operation the format lacks
// in PTX returns false from `supports` (the decoder turns the instruction into an
// unsupported one); `finish` applies .ftz/.sat/.relu and the canonical NaN.
struct F32Format {
  using T = float;
  static T read(uint64_t v) { return bitsFloat(static_cast<uint32_t>(v)); }
  static T flush(T v, const FloatMods& m) { return m.ftz ? flushF(v) : v; }
  static T add(T a, T b, Rnd r) { return r == Rnd::Nearest ? a + b : addF(a, b, r); }
  static T sub(T a, T b, Rnd r) { return r == Rnd::Nearest ? a - b : subF(a, b, r); }
  static T mul(T a, T b, Rnd r) { return r == Rnd::Nearest ? a * b : mulF(a, b, r); }
  static T fma(T a, T b, T c, Rnd r) { return r == Rnd::Nearest ? __builtin_fmaf(a, b, c) : fmaF(a, b, c, r); }
  // .rn/.rz/.rm/.rp are IEEE; .approx and .full are computed exactly too (docs/EMULATOR.md).
  static T div(T a, T b, const FloatMods& m) { return m.hasRounding ? divF(a, b, m.rnd) : static_cast<T>(static_cast<double>(a) / b); }
  static T sqrt(T a, const FloatMods& m) { return m.hasRounding ? sqrtF(a, m.rnd) : static_cast<T>(std::sqrt(static_cast<double>(a))); }
  static T rcp(T a, const FloatMods& m) { return m.hasRounding ? rcpF(a, m.rnd) : static_cast<T>(1.0 / static_cast<double>(a)); }
  static T viaDouble(double (*f)(double), T a) { return static_cast<T>(f(a)); }
  static T abs(T a) { return bitsFloat(floatBits(a) & 0x7FFFFFFFu); }
  static T neg(T a) { return bitsFloat(floatBits(a) ^ 0x80000000u); }
  static T copysign(T a, T b) { return std::copysign(b, a); }  // copysign d, a, b: b with a's sign
  static T minmax(T a, T b, bool isMax, MinMaxNaN n) { return floatMinMax(a, b, isMax, n == MinMaxNaN::Propagate); }
  static uint64_t finish(T v, const FloatMods& m, bool canonical) {
    v = flush(v, m);
    if (m.sat) v = std::isnan(v) ? T(0) : std::clamp(v, T(0), T(1));
    if (m.relu && v < 0) v = 0;
    return canonical && std::isnan(v) ? canonicalNaN32() : floatBits(v);
  }
  static bool supports(ArithOp) { return true; }
};

struct F64Format {
  using T = double;
  static T read(uint64_t v) { return bitsDouble(v); }
  static T flush(T v, const FloatMods&) { return v; }
  static T add(T a, T b, Rnd r) { return r == Rnd::Nearest ? a + b : addD(a, b, r); }
  static T sub(T a, T b, Rnd r) { return r == Rnd::Nearest ? a - b : subD(a, b, r); }
  static T mul(T a, T b, Rnd r) { return r == Rnd::Nearest ? a * b : mulD(a, b, r); }
  static T fma(T a, T b, T c, Rnd r) { return r == Rnd::Nearest ? __builtin_fma(a, b, c) : fmaD(a, b, c, r); }
  static T div(T a, T b, const FloatMods& m) { return divD(a, b, m.rnd); }
  static T sqrt(T a, const FloatMods& m) { return sqrtD(a, m.rnd); }
  static T rcp(T a, const FloatMods& m) { return m.approx ? 1.0 / a : rcpD(a, m.rnd); }
  static T viaDouble(double (*f)(double), T a) { return f(a); }
  static T abs(T a) { return bitsDouble(doubleBits(a) & ~(uint64_t(1) << 63)); }
  static T neg(T a) { return bitsDouble(doubleBits(a) ^ (uint64_t(1) << 63)); }
  static T copysign(T a, T b) { return std::copysign(b, a); }
  static T minmax(T a, T b, bool isMax, MinMaxNaN n) { return floatMinMax(a, b, isMax, n == MinMaxNaN::Propagate); }
  static uint64_t finish(T v, const FloatMods&, bool canonical) { return canonical && std::isnan(v) ? canonicalNaN64() : doubleBits(v); }
  static bool supports(ArithOp op) {
    return op != ArithOp::Ex2 && op != ArithOp::Sin && op != ArithOp::Cos && op != ArithOp::Tanh;
  }
};

// f16 and bf16, one 16-bit element: arithmetic rounds once (through round-to-odd in double),
// the rest goes through double.
template <bool BF>
struct HalfFormat {
  using T = uint16_t;
  static constexpr int kExp = BF ? 8 : 5, kMan = BF ? 7 : 10;
  static double d(T v) { return smallFloatToDouble(v, kExp, kMan); }
  static T read(uint64_t v) { return static_cast<T>(v); }
  static T flush(T v, const FloatMods& m) {
    return m.ftz && ((v >> kMan) & ((1 << kExp) - 1)) == 0 ? static_cast<T>(v & 0x8000) : v;
  }
  static T add(T a, T b, Rnd r) { return halfArith(HalfOp::Add, a, b, 0, BF, r); }
  static T sub(T a, T b, Rnd r) { return halfArith(HalfOp::Sub, a, b, 0, BF, r); }
  static T mul(T a, T b, Rnd r) { return halfArith(HalfOp::Mul, a, b, 0, BF, r); }
  static T fma(T a, T b, T c, Rnd r) { return halfArith(HalfOp::Fma, a, b, c, BF, r); }
  static T div(T, T, const FloatMods&) { return 0; }
  static T sqrt(T, const FloatMods&) { return 0; }
  static T rcp(T, const FloatMods&) { return 0; }
  static T viaDouble(double (*f)(double), T a) { return doubleToHalfR(f(d(a)), BF, Rnd::Nearest); }
  static T abs(T a) { return static_cast<T>(a & 0x7FFF); }
  static T neg(T a) { return static_cast<T>(a ^ 0x8000); }
  static T copysign(T a, T b) { return static_cast<T>((b & 0x7FFF) | (a & 0x8000)); }
  static T minmax(T a, T b, bool isMax, MinMaxNaN n) {
    double m = floatMinMax(d(a), d(b), isMax, n == MinMaxNaN::Propagate);
    return std::isnan(m) ? static_cast<T>(0x7FFF) : doubleToHalfR(m, BF, Rnd::Nearest);
  }
  static uint64_t finish(T v, const FloatMods& m, bool) { return halfSatRelu(flush(v, m), BF, m.sat, m.relu); }
  static bool supports(ArithOp op) {
    switch (op) {
      case ArithOp::Add: case ArithOp::Sub: case ArithOp::Mul: case ArithOp::Mad: case ArithOp::Abs:
      case ArithOp::Neg: case ArithOp::Min: case ArithOp::Max: case ArithOp::Ex2: case ArithOp::Tanh: return true;
      default: return false;
    }
  }
};

inline double recipSqrt(double x) { return 1.0 / std::sqrt(x); }

// One element of a float instruction in format F.
template <typename F>
PTXOPT_LANE uint64_t floatLane(ArithOp op, const FloatMods& m, uint64_t a, uint64_t b, uint64_t c) {
  using T = typename F::T;
  T x = F::flush(F::read(a), m), y = F::flush(F::read(b), m), z = F::flush(F::read(c), m), v{};
  const Rnd r = m.rnd;
  switch (op) {
    case ArithOp::Add: v = F::add(x, y, r); break;
    case ArithOp::Sub: v = F::sub(x, y, r); break;
    case ArithOp::Mul: v = F::mul(x, y, r); break;
    case ArithOp::Mad: v = F::fma(x, y, z, r); break;  // mad.f32/f64 is fused, as fma
    case ArithOp::Div: v = F::div(x, y, m); break;
    case ArithOp::Abs: v = F::abs(x); break;
    case ArithOp::Neg: v = F::neg(x); break;
    case ArithOp::Min:
    case ArithOp::Max: return F::finish(F::minmax(x, y, op == ArithOp::Max, m.nan), m, true);
    case ArithOp::Sqrt: v = F::sqrt(x, m); break;
    case ArithOp::Rsqrt: v = F::viaDouble(&recipSqrt, x); break;
    case ArithOp::Rcp: v = F::rcp(x, m); break;
    case ArithOp::Ex2: v = F::viaDouble(static_cast<double (*)(double)>(&std::exp2), x); break;
    case ArithOp::Lg2: v = F::viaDouble(static_cast<double (*)(double)>(&std::log2), x); break;
    case ArithOp::Sin: v = F::viaDouble(static_cast<double (*)(double)>(&std::sin), x); break;
    case ArithOp::Cos: v = F::viaDouble(static_cast<double (*)(double)>(&std::cos), x); break;
    case ArithOp::Tanh: v = F::viaDouble(static_cast<double (*)(double)>(&std::tanh), x); break;
    case ArithOp::Copysign: v = F::copysign(x, y); break;
    default: break;
  }
  // A NaN that arithmetic computes is the canonical NaN: which input's payload the host would
  // pass on depends on how the compiler ordered a commutative operation (the vectorized
  // full-warp loop and the per-lane one disagreed), and the GPU does not pass payloads on.
  // abs, neg and copysign only move bits.
  return F::finish(v, m, op != ArithOp::Abs && op != ArithOp::Neg && op != ArithOp::Copysign);
}

// testp on a value of type t (f32 or f64).
inline bool testLane(TestKind k, ScalarType t, uint64_t a) {
  double v = readFloat(a, t);
  int cls = t == ScalarType::F32 ? std::fpclassify(bitsFloat(static_cast<uint32_t>(a))) : std::fpclassify(v);
  switch (k) {
    case TestKind::Finite: return std::isfinite(v);
    case TestKind::Infinite: return std::isinf(v);
    case TestKind::Number: return !std::isnan(v);
    case TestKind::NotANumber: return std::isnan(v);
    case TestKind::Normal: return cls == FP_NORMAL;
    case TestKind::Subnormal: return cls == FP_SUBNORMAL;
  }
  return false;
}

// ---- comparisons -------------------------------------------------------------------------------

// setp/set's comparison of one element (`half`: which 16-bit half of an f16x2/bf16x2 pair).
PTXOPT_LANE bool compareLane(CmpOp op, ScalarType t, bool ftz, uint64_t x, uint64_t y, int half) {
  const TypeClass cls = typeClass(t);
  if (cls == TypeClass::Float) {
    double dx, dy;
    if (t == ScalarType::F32) {
      float fx = bitsFloat(static_cast<uint32_t>(x)), fy = bitsFloat(static_cast<uint32_t>(y));
      if (ftz) {
        fx = flushF(fx);
        fy = flushF(fy);
      }
      dx = fx;
      dy = fy;
    } else if (t == ScalarType::F64) {
      dx = bitsDouble(x);
      dy = bitsDouble(y);
    } else {
      bool bf = t == ScalarType::BF16 || t == ScalarType::BF16x2;
      uint16_t hx = static_cast<uint16_t>(x >> (16 * half)), hy = static_cast<uint16_t>(y >> (16 * half));
      dx = bf ? bfloat16ToDouble(hx) : halfToDouble(hx);
      dy = bf ? bfloat16ToDouble(hy) : halfToDouble(hy);
    }
    return compareFloat(op, dx, dy);
  }
  const unsigned bits = t == ScalarType::Pred ? 1 : typeBits(t);
  const bool sg = cls == TypeClass::Signed;
  uint64_t xv = sg ? static_cast<uint64_t>(signExtend(x, bits)) : x & widthMask(bits);
  uint64_t yv = sg ? static_cast<uint64_t>(signExtend(y, bits)) : y & widthMask(bits);
  return compareInt(op, sg, xv, yv);
}

// The comparison combined with a third predicate (setp.cmp.and/or/xor).
PTXOPT_LANE bool combineLane(BoolOp op, bool v, bool c) {
  switch (op) {
    case BoolOp::And: return v && c;
    case BoolOp::Or: return v || c;
    case BoolOp::Xor: return v != c;
    case BoolOp::None: return v;
  }
  return v;
}

// ---- conversions -------------------------------------------------------------------------------

struct CvtMods {
  Rnd rnd = Rnd::Nearest;
  bool ftz = false, sat = false, relu = false, toIntegral = false;
};

// A float result of cvt in format dt.
inline uint64_t cvtWriteFloat(ScalarType dt, const CvtMods& m, double v) {
  switch (dt) {
    case ScalarType::F32: {
      float fv = doubleToFloat(v, m.rnd);
      if (m.ftz) fv = flushF(fv);
      if (m.sat) fv = std::isnan(fv) ? 0.0f : std::clamp(fv, 0.0f, 1.0f);
      return floatBits(fv);
    }
    case ScalarType::F64:
      if (m.sat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
      return doubleBits(v);
    case ScalarType::F16:
    case ScalarType::F16x2:
    case ScalarType::BF16:
    case ScalarType::BF16x2: {
      const bool bf = dt == ScalarType::BF16 || dt == ScalarType::BF16x2;
      return halfSatRelu(doubleToHalfR(v, bf, m.rnd), bf, m.sat, m.relu);
    }
    default: return 0;
  }
}

// cvt.dt.st of one value.
PTXOPT_LANE uint64_t cvtLane(ScalarType dt, ScalarType st, const CvtMods& m, uint64_t x) {
  const TypeClass dc = typeClass(dt), sc = typeClass(st);
  const unsigned db = typeBits(dt), sb = typeBits(st);
  const bool dFloat = dc == TypeClass::Float, sFloat = sc == TypeClass::Float;
  const bool ss = sc == TypeClass::Signed;
  if (!dFloat && !sFloat) {
    // Integer to integer: extend from the source width, then wrap or saturate.
    __int128 v = ss ? static_cast<__int128>(signExtend(x, sb)) : static_cast<__int128>(x & widthMask(sb));
    if (m.sat) {
      __int128 lo = dc == TypeClass::Signed ? -(static_cast<__int128>(1) << (db - 1)) : 0;
      __int128 hi = dc == TypeClass::Signed ? (static_cast<__int128>(1) << (db - 1)) - 1 : (static_cast<__int128>(1) << db) - 1;
      v = std::clamp(v, lo, hi);
    }
    return static_cast<uint64_t>(v) & widthMask(db);
  }
  if (!sFloat) {
    // Integer to float (default rounding: to nearest).
    uint64_t v = ss ? static_cast<uint64_t>(signExtend(x, sb)) : x & widthMask(sb);
    if (dt == ScalarType::F32) {
      float fv = intToFloat(v, ss, m.rnd);
      if (m.sat) fv = std::clamp(fv, 0.0f, 1.0f);
      return floatBits(fv);
    }
    if (dt == ScalarType::F64) {
      double dv = intToDouble(v, ss, m.rnd);
      if (m.sat) dv = std::clamp(dv, 0.0, 1.0);
      return doubleBits(dv);
    }
    // To f16/bf16 through double: above 2^53 the bits that double cannot hold are folded into a
    // sticky bit, so the one rounding to 16 bits still sees them.
    bool neg = ss && static_cast<int64_t>(v) < 0;
    uint64_t mag = neg ? 0 - v : v;
    int k = 0;
    while (mag >= (uint64_t{1} << 53)) {
      mag = (mag >> 1) | (mag & 1);
      ++k;
    }
    double dv = std::ldexp(static_cast<double>(mag), k);
    return cvtWriteFloat(dt, m, neg ? -dv : dv);
  }
  double v = readFloat(x, st);
  if (m.ftz && st == ScalarType::F32) v = flushF(static_cast<float>(v));
  if (!dFloat) return floatToInt(v, m.rnd, dc == TypeClass::Signed, db);
  if (m.toIntegral && dt == st) return cvtWriteFloat(dt, m, roundIntegral(v, m.rnd));  // cvt.rni.f32.f32
  return cvtWriteFloat(dt, m, v);
}

// cvt.f16x2.f32 d, a, b (and bf16x2): a into the upper half, b into the lower.
inline uint64_t cvtPackedLane(ScalarType dt, ScalarType st, const CvtMods& m, uint64_t a, uint64_t b) {
  return (cvtWriteFloat(dt, m, readFloat(a, st)) << 16) | cvtWriteFloat(dt, m, readFloat(b, st));
}

}  // namespace ptxopt::emu
