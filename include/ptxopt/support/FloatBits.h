// Exact conversions between double and the 16-bit float formats, with IEEE round to
// nearest even (one rounding step, never through float). Used for launch-spec initializers and
// by the emulator.
#pragma once

#include <cstdint>
#include <cstring>

namespace ptxopt {

inline uint64_t doubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
inline double bitsDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Rounds a double to a binary format with `expBits` exponent bits and `manBits` fraction bits
// (half: 5/10, bfloat16: 8/7), round to nearest even, with subnormals, infinities and NaN.
inline uint16_t roundDoubleToSmallFloat(double d, int expBits, int manBits) {
  uint64_t u = doubleBits(d);
  uint16_t sign = static_cast<uint16_t>((u >> 63) << (expBits + manBits));
  int64_t exp = static_cast<int64_t>((u >> 52) & 0x7FF);
  uint64_t man = u & ((uint64_t(1) << 52) - 1);
  const int bias = (1 << (expBits - 1)) - 1;
  const uint16_t expMax = static_cast<uint16_t>((1 << expBits) - 1);
  if (exp == 0x7FF) {
    if (man == 0) return static_cast<uint16_t>(sign | (expMax << manBits));
    // Quiet NaN, keeping the top payload bits.
    uint16_t payload = static_cast<uint16_t>(man >> (52 - manBits));
    return static_cast<uint16_t>(sign | (expMax << manBits) | payload | (1u << (manBits - 1)));
  }
  if (exp == 0 && man == 0) return sign;
  // Normalize: value = 1.man * 2^(exp-1023) (double subnormals are far below any target).
  int64_t e = exp - 1023;
  uint64_t sig = (uint64_t(1) << 52) | man;  // 53 significant bits
  int64_t targetExp = e + bias;
  int shift;  // how many low bits of sig to drop
  if (targetExp >= 1) {
    shift = 52 - manBits;
  } else {
    // subnormal in the target: fewer fraction bits remain
    shift = static_cast<int>(52 - manBits + (1 - targetExp));
    if (shift > 62) return sign;  // rounds to zero (also below half of the smallest subnormal)
    targetExp = 0;
  }
  uint64_t kept = sig >> shift;
  uint64_t rest = sig & ((uint64_t(1) << shift) - 1);
  uint64_t half = uint64_t(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  uint64_t result;
  if (targetExp == 0) {
    // kept holds the subnormal fraction (it may have rounded up into the smallest normal)
    result = kept;
  } else {
    if (kept >> (manBits + 1)) {  // mantissa overflow after rounding
      kept >>= 1;
      ++targetExp;
    }
    if (targetExp >= expMax) return static_cast<uint16_t>(sign | (expMax << manBits));
    result = (static_cast<uint64_t>(targetExp) << manBits) | (kept & ((uint64_t(1) << manBits) - 1));
  }
  return static_cast<uint16_t>(sign | result);
}

inline double smallFloatToDouble(uint16_t h, int expBits, int manBits) {
  const int bias = (1 << (expBits - 1)) - 1;
  const int expMax = (1 << expBits) - 1;
  bool neg = (h >> (expBits + manBits)) & 1;
  int exp = (h >> manBits) & expMax;
  uint64_t man = h & ((1u << manBits) - 1);
  uint64_t sign = uint64_t(neg) << 63;
  if (exp == expMax) {
    if (man == 0) return bitsDouble(sign | (uint64_t(0x7FF) << 52));
    return bitsDouble(sign | (uint64_t(0x7FF) << 52) | (man << (52 - manBits)) | (uint64_t(1) << 51));
  }
  if (exp == 0) {
    if (man == 0) return bitsDouble(sign);
    // subnormal: man * 2^(1-bias-manBits)
    double v = static_cast<double>(man);
    for (int k = 0; k < bias - 1 + manBits; ++k) v *= 0.5;
    return neg ? -v : v;
  }
  return bitsDouble(sign | (static_cast<uint64_t>(exp - bias + 1023) << 52) | (man << (52 - manBits)));
}

inline uint16_t doubleToHalf(double d) { return roundDoubleToSmallFloat(d, 5, 10); }
inline uint16_t doubleToBFloat16(double d) { return roundDoubleToSmallFloat(d, 8, 7); }
inline double halfToDouble(uint16_t h) { return smallFloatToDouble(h, 5, 10); }
inline double bfloat16ToDouble(uint16_t h) { return smallFloatToDouble(h, 8, 7); }

}  // namespace ptxopt
