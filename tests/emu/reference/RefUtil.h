// Helpers for the reference implementations: launch geometry, bounds-checked buffer views, and
// exact models of the PTX operations the corpus kernels use (integer bit operations, directed
// rounding, float<->int conversions with saturation, PTX min/max NaN and signed-zero rules,
// half-precision arithmetic with a single rounding, and the shfl.sync lane selection).
//
// Everything here is plain, deterministic C++: no floating-point environment changes, no host
// intrinsics. Each helper names the PTX instruction it models.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "Reference.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::ref {

// ---- launch geometry --------------------------------------------------------------------------

struct Thread {
  uint32_t tx, ty, tz;     // threadIdx
  uint32_t bx, by, bz;     // blockIdx
  uint32_t ntx, nty, ntz;  // blockDim
  uint32_t nbx, nby, nbz;  // gridDim
  uint32_t tlin;           // linear thread index within the CTA (x fastest)
  uint32_t blin;           // linear CTA index (x fastest)
  uint32_t lane, warp;     // tlin % 32, tlin / 32
};

// a * b + c where the source wrote a multiply and an add: one fma.rn when the compiler
// contracted it, otherwise mul.rn then add.rn.
template <typename T>
T mulAdd(const RefLaunch& L, T a, T b, T c) {
  if (L.contracted) return std::fma(a, b, c);
  volatile T product = a * b;  // keep the host compiler from fusing
  return product + c;
}

inline uint32_t threadsPerBlock(const RefLaunch& L) { return L.block()[0] * L.block()[1] * L.block()[2]; }
inline uint32_t numBlocks(const RefLaunch& L) { return L.grid()[0] * L.grid()[1] * L.grid()[2]; }

inline Thread makeThread(const RefLaunch& L, uint32_t blin, uint32_t tlin) {
  auto g = L.grid();
  auto b = L.block();
  Thread t{};
  t.ntx = b[0], t.nty = b[1], t.ntz = b[2];
  t.nbx = g[0], t.nby = g[1], t.nbz = g[2];
  t.tx = tlin % b[0];
  t.ty = (tlin / b[0]) % b[1];
  t.tz = tlin / (b[0] * b[1]);
  t.bx = blin % g[0];
  t.by = (blin / g[0]) % g[1];
  t.bz = blin / (g[0] * g[1]);
  t.tlin = tlin;
  t.blin = blin;
  t.lane = tlin % 32;
  t.warp = tlin / 32;
  return t;
}

// Calls f(const Thread&) for every thread of the grid: CTAs in linear order, threads in linear
// order within each CTA. Only for kernels whose threads do not communicate.
template <typename F>
void forEachThread(const RefLaunch& L, F&& f) {
  uint32_t nb = numBlocks(L), nt = threadsPerBlock(L);
  for (uint32_t b = 0; b < nb; ++b)
    for (uint32_t t = 0; t < nt; ++t) f(makeThread(L, b, t));
}

// The global x index blockIdx.x * blockDim.x + threadIdx.x as the kernels compute it (int).
inline int32_t globalX(const Thread& t) { return static_cast<int32_t>(t.bx * t.ntx + t.tx); }

// ---- bounds-checked buffer views ---------------------------------------------------------------

// A view of a buffer parameter whose operator[] throws on an index the emulator would fault on,
// so a spec that is too small for the kernel shows up as a failing reference.
template <typename T>
struct Buf {
  std::span<T> s;
  std::string name;
  T& operator[](int64_t i) const {
    if (i < 0 || static_cast<uint64_t>(i) >= s.size())
      throw std::runtime_error("out-of-bounds access " + name + "[" + std::to_string(i) + "] (buffer has " +
                               std::to_string(s.size()) + " elements)");
    return s[static_cast<size_t>(i)];
  }
  size_t size() const { return s.size(); }
};

template <typename T>
Buf<T> buffer(RefLaunch& L, const std::string& name) {
  return Buf<T>{L.buf<T>(name), name};
}

// ---- integer operations -----------------------------------------------------------------------

// Two's complement wrapping arithmetic on 32/64-bit signed values (CUDA int overflow wraps in
// practice; the PTX add/mul.lo are modular).
inline int32_t wadd(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); }
inline int32_t wsub(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)); }
inline int32_t wmul(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b)); }
inline int32_t wneg(int32_t a) { return static_cast<int32_t>(0u - static_cast<uint32_t>(a)); }
inline int32_t wshl(int32_t a, uint32_t n) { return static_cast<int32_t>(static_cast<uint32_t>(a) << n); }  // n < 32
inline int64_t wadd64(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wmul64(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

// div.s32 / rem.s32: truncation toward zero (C semantics); never called with b == 0 or
// INT_MIN / -1 by the corpus.
inline int32_t sdiv(int32_t a, int32_t b) {
  if (b == 0 || (a == std::numeric_limits<int32_t>::min() && b == -1)) throw std::runtime_error("sdiv: undefined");
  return a / b;
}
inline int32_t srem(int32_t a, int32_t b) {
  if (b == 0 || (a == std::numeric_limits<int32_t>::min() && b == -1)) throw std::runtime_error("srem: undefined");
  return a % b;
}
inline int64_t sdiv64(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) throw std::runtime_error("sdiv64: undefined");
  return a / b;
}
inline int64_t srem64(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) throw std::runtime_error("srem64: undefined");
  return a % b;
}

// mul.hi.{s32,u32,s64,u64}
inline int32_t mulhiS32(int32_t a, int32_t b) { return static_cast<int32_t>((static_cast<int64_t>(a) * b) >> 32); }
inline uint32_t mulhiU32(uint32_t a, uint32_t b) { return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32); }
inline int64_t mulhiS64(int64_t a, int64_t b) {
  return static_cast<int64_t>((static_cast<__int128>(a) * static_cast<__int128>(b)) >> 64);
}
inline uint64_t mulhiU64(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b)) >> 64);
}

inline uint32_t popc32(uint32_t x) { return static_cast<uint32_t>(std::popcount(x)); }
inline uint32_t popc64(uint64_t x) { return static_cast<uint32_t>(std::popcount(x)); }
inline uint32_t clz32(uint32_t x) { return static_cast<uint32_t>(std::countl_zero(x)); }  // 32 for 0
inline uint32_t clz64(uint64_t x) { return static_cast<uint32_t>(std::countl_zero(x)); }  // 64 for 0
inline uint32_t brev32(uint32_t x) {
  uint32_t r = 0;
  for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1u) << (31 - k);
  return r;
}
inline uint64_t brev64(uint64_t x) {
  uint64_t r = 0;
  for (int k = 0; k < 64; ++k) r |= ((x >> k) & 1ull) << (63 - k);
  return r;
}
// __ffs: 1 + index of the least significant set bit, 0 for 0.
inline uint32_t ffs32(uint32_t x) { return x == 0 ? 0u : static_cast<uint32_t>(std::countr_zero(x)) + 1u; }

// bfe.u32 / bfe.s32 (PTX ISA semantics: pos and len taken mod 256, len 0 gives 0, bits past
// the msb replicate the sign bit sbit = a[min(pos+len-1, 31)] for .s32, zero for .u32).
inline uint32_t bfe32(uint32_t a, uint32_t b, uint32_t c, bool isSigned) {
  const uint32_t msb = 31;
  uint32_t pos = b & 0xff, len = c & 0xff;
  uint32_t sbit = (!isSigned || len == 0) ? 0u : (a >> std::min(pos + len - 1, msb)) & 1u;
  uint32_t d = 0;
  for (uint32_t i = 0; i <= msb; ++i) {
    uint32_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1u : sbit;
    d |= bit << i;
  }
  return d;
}
// bfi.b32 f, a, b, c, d: insert the low bits of a into b at position c, length d.
inline uint32_t bfi32(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  const uint32_t msb = 31;
  uint32_t pos = c & 0xff, len = d & 0xff;
  uint32_t f = b;
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) f = (f & ~(1u << (pos + i))) | (((a >> i) & 1u) << (pos + i));
  return f;
}
// prmt.b32 (default mode) = __byte_perm(a, b, s): bytes 0..3 from a, 4..7 from b; selector
// nibble bit 3 replicates the sign of the chosen byte.
inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t s) {
  uint64_t tmp = (static_cast<uint64_t>(b) << 32) | a;
  uint32_t d = 0;
  for (int n = 0; n < 4; ++n) {
    uint32_t sel = (s >> (4 * n)) & 0xf;
    uint32_t byte = static_cast<uint32_t>(tmp >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0x00;
    d |= byte << (8 * n);
  }
  return d;
}
// shf.l.wrap.b32 d, lo, hi, n = __funnelshift_l(lo, hi, n): high word of (hi:lo) << (n & 31).
inline uint32_t funnelShiftL(uint32_t lo, uint32_t hi, uint32_t n) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<uint32_t>((v << (n & 31)) >> 32);
}
// shf.r.wrap.b32 d, lo, hi, n = __funnelshift_r(lo, hi, n): low word of (hi:lo) >> (n & 31).
inline uint32_t funnelShiftR(uint32_t lo, uint32_t hi, uint32_t n) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<uint32_t>(v >> (n & 31));
}
// sad.s32 / sad.u32: c + |a - b| (the difference taken in the signed/unsigned order, modular).
inline uint32_t sadS32(int32_t a, int32_t b, uint32_t c) {
  uint32_t diff = (a < b) ? static_cast<uint32_t>(b) - static_cast<uint32_t>(a) : static_cast<uint32_t>(a) - static_cast<uint32_t>(b);
  return c + diff;
}
inline uint32_t sadU32(uint32_t a, uint32_t b, uint32_t c) { return c + ((a < b) ? b - a : a - b); }

// ---- float bit views ---------------------------------------------------------------------------

inline uint64_t f64Bits(double d) { return doubleBits(d); }
inline double f64FromBits(uint64_t u) { return bitsDouble(u); }
inline uint32_t f32Bits(float f) { return floatBits(f); }
inline float f32FromBits(uint32_t u) { return bitsFloat(u); }

// ---- PTX min/max (floating point) --------------------------------------------------------------
// One NaN input: the other input. Both NaN: the canonical NaN. Otherwise the smaller/larger
// value, with -0.0 < +0.0.
inline float minF32(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return f32FromBits(0x7fffffffu);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0.0f && b == 0.0f) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline float maxF32(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return f32FromBits(0x7fffffffu);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0.0f && b == 0.0f) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double minF64(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return f64FromBits(0x7fffffffffffffffull);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0.0 && b == 0.0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline double maxF64(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return f64FromBits(0x7fffffffffffffffull);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0.0 && b == 0.0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// ---- directed rounding -------------------------------------------------------------------------

enum class Rnd { RN, RZ, RM, RP };

// Rounds the exact value s + e to float in mode m, where s is a double and |e| is at most half
// an ulp of s (as produced by an exact product in double, or by TwoSum). Finite values only.
inline float roundToF32(double s, double e, Rnd m) {
  if (m == Rnd::RN) {
    if (e != 0) throw std::runtime_error("roundToF32: RN with a residual is not needed by the corpus");
    return static_cast<float>(s);
  }
  if (m == Rnd::RZ) {
    if (s == 0) return static_cast<float>(s);
    m = s > 0 ? Rnd::RM : Rnd::RP;
  }
  float f = static_cast<float>(s);  // nearest
  double fd = f;
  if (m == Rnd::RM) {
    if (fd > s || (fd == s && e < 0)) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  } else {
    if (fd < s || (fd == s && e > 0)) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  }
  return f;
}
// Knuth's TwoSum: a + b == s + e exactly.
inline void twoSum(double a, double b, double& s, double& e) {
  s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
// mul{.rz,.rm,.rp}.f32: the product of two floats is exact in double.
inline float mulF32(float a, float b, Rnd m) { return roundToF32(static_cast<double>(a) * static_cast<double>(b), 0.0, m); }
// add{.rz,.rm,.rp}.f32
inline float addF32(float a, float b, Rnd m) {
  double s, e;
  twoSum(a, b, s, e);
  return roundToF32(s, e, m);
}
// mul{.rm,.rp,.rz}.f64: the error of the rounded product is exact through fma.
inline double mulF64(double a, double b, Rnd m) {
  double s = a * b;
  double e = std::fma(a, b, -s);
  if (m == Rnd::RN || e == 0) return s;
  if (m == Rnd::RZ) m = s > 0 ? Rnd::RM : Rnd::RP;
  if (m == Rnd::RM && e < 0) return std::nextafter(s, -std::numeric_limits<double>::infinity());
  if (m == Rnd::RP && e > 0) return std::nextafter(s, std::numeric_limits<double>::infinity());
  return s;
}
// cvt.rz.f32.u32 (__uint2float_rz) and friends: an integer is exact in double.
inline float u32ToF32(uint32_t u, Rnd m) { return roundToF32(static_cast<double>(u), 0.0, m); }
// cvt.sat.f32.f32 (__saturatef): clamp to [0, 1], NaN gives 0.
inline float satF32(float x) {
  if (std::isnan(x)) return 0.0f;
  return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

// Float to integer rounding ({rni, rzi, rmi, rpi}) of an already exact value.
inline double roundIntegral(double v, Rnd m) {
  switch (m) {
    case Rnd::RN: return std::nearbyint(v);  // default environment: ties to even
    case Rnd::RZ: return std::trunc(v);
    case Rnd::RM: return std::floor(v);
    case Rnd::RP: return std::ceil(v);
  }
  return v;
}
// cvt.{rni,rzi,rmi,rpi}.s32.{f32,f64}: saturating, NaN gives 0.
inline int32_t cvtS32(double v, Rnd m) {
  if (std::isnan(v)) return 0;
  double r = roundIntegral(v, m);
  if (r <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  if (r >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(r);
}
// cvt.{rni,...}.u32.{f32,f64}
inline uint32_t cvtU32(double v, Rnd m) {
  if (std::isnan(v)) return 0;
  double r = roundIntegral(v, m);
  if (r <= 0.0) return 0;
  if (r >= 4294967295.0) return 0xffffffffu;
  return static_cast<uint32_t>(r);
}
// cvt.{rni,...}.s64.{f32,f64}
inline int64_t cvtS64(double v, Rnd m) {
  if (std::isnan(v)) return 0;
  double r = roundIntegral(v, m);
  if (r < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  if (r >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(r);
}
// cvt.{rni,...}.f32.f32: round to an integral float.
inline float roundF32(float v, Rnd m) { return static_cast<float>(roundIntegral(v, m)); }

// ---- half precision ----------------------------------------------------------------------------
// Each operation is computed exactly and rounded once (round to nearest even), like the
// hardware's add/sub/mul/fma.rn.f16.

inline bool halfIsNaN(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0; }
inline bool halfIsInf(uint16_t h) { return (h & 0x7fff) == 0x7c00; }
inline double halfValue(uint16_t h) { return halfToDouble(h); }
inline float halfToF32(uint16_t h) { return static_cast<float>(halfToDouble(h)); }  // cvt.f32.f16, exact
inline uint16_t f32ToHalfRn(float f) { return doubleToHalf(f); }  // cvt.rn.f16.f32 (float->double is exact)
// cvt.rz.f16.f32
inline uint16_t f32ToHalfRz(float f) {
  if (std::isnan(f)) return doubleToHalf(f);
  uint16_t h = doubleToHalf(f);
  if (std::fabs(halfToDouble(h)) > std::fabs(static_cast<double>(f))) --h;  // one step toward zero (inf -> max finite)
  return h;
}
// cvt.rn.f16.s32 (an int is exact in double)
inline uint16_t s32ToHalfRn(int32_t v) { return doubleToHalf(static_cast<double>(v)); }

// An exact binary value (-1)^neg * mag * 2^exp.
struct Exact {
  bool neg = false;
  unsigned __int128 mag = 0;
  int exp = 0;
};
inline Exact halfExact(uint16_t h) {
  Exact x;
  x.neg = (h >> 15) != 0;
  int e = (h >> 10) & 31;
  uint32_t m = h & 0x3ff;
  if (e == 0) {
    x.mag = m;
    x.exp = -24;
  } else {
    x.mag = m | 0x400;
    x.exp = e - 25;
  }
  return x;
}
inline Exact exactMul(const Exact& a, const Exact& b) {
  Exact r;
  r.neg = a.neg != b.neg;
  r.mag = a.mag * b.mag;
  r.exp = a.exp + b.exp;
  return r;
}
// Exact sum; an exact zero from nonzero terms is +0 (round to nearest), zero plus zero keeps the
// sign only when both are negative.
inline Exact exactAdd(const Exact& a, const Exact& b) {
  if (a.mag == 0 && b.mag == 0) return Exact{a.neg && b.neg, 0, 0};
  if (a.mag == 0) return b;
  if (b.mag == 0) return a;
  int e = std::min(a.exp, b.exp);
  if (a.exp - e > 100 || b.exp - e > 100) throw std::runtime_error("exactAdd: exponent range too wide");
  unsigned __int128 ma = a.mag << (a.exp - e), mb = b.mag << (b.exp - e);
  Exact r;
  r.exp = e;
  if (a.neg == b.neg) {
    r.neg = a.neg;
    r.mag = ma + mb;
  } else if (ma >= mb) {
    r.neg = a.neg;
    r.mag = ma - mb;
  } else {
    r.neg = b.neg;
    r.mag = mb - ma;
  }
  if (r.mag == 0) r.neg = false;
  return r;
}
inline int bitLength(unsigned __int128 v) {
  int n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}
// Rounds an exact value to half, nearest even, with subnormals and overflow to infinity.
inline uint16_t exactToHalf(const Exact& v) {
  uint16_t sign = v.neg ? 0x8000 : 0;
  if (v.mag == 0) return sign;
  int L = bitLength(v.mag);
  int shift = std::max(L - 11, -24 - v.exp);
  unsigned __int128 q;
  if (shift <= 0) {
    q = v.mag << (-shift);
  } else if (shift > L) {
    q = 0;  // below half of the smallest subnormal step
  } else {
    q = v.mag >> shift;
    unsigned __int128 rest = v.mag - (q << shift);
    unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;
  }
  int k = v.exp + shift;
  if (q >= 2048) {
    q >>= 1;
    ++k;
  }
  if (q < 1024) return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));  // subnormal (k == -24) or zero
  int biased = k + 25;
  if (biased >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  return static_cast<uint16_t>(sign | (biased << 10) | static_cast<uint16_t>(q & 0x3ff));
}
inline bool halfSpecial(uint16_t h) { return (h & 0x7c00) == 0x7c00; }
// add.rn.f16 / sub.rn.f16 / mul.rn.f16 / fma.rn.f16. Infinity and NaN operands go through
// double (exact for them); the corpus does not produce them.
inline uint16_t hadd(uint16_t a, uint16_t b) {
  if (halfSpecial(a) || halfSpecial(b)) return doubleToHalf(halfValue(a) + halfValue(b));
  return exactToHalf(exactAdd(halfExact(a), halfExact(b)));
}
inline uint16_t hneg(uint16_t a) { return static_cast<uint16_t>(a ^ 0x8000); }  // neg.f16 flips the sign bit
inline uint16_t hsub(uint16_t a, uint16_t b) { return hadd(a, hneg(b)); }
inline uint16_t hmul(uint16_t a, uint16_t b) {
  if (halfSpecial(a) || halfSpecial(b)) return doubleToHalf(halfValue(a) * halfValue(b));
  return exactToHalf(exactMul(halfExact(a), halfExact(b)));
}
inline uint16_t hfma(uint16_t a, uint16_t b, uint16_t c) {
  if (halfSpecial(a) || halfSpecial(b) || halfSpecial(c))
    return doubleToHalf(halfValue(a) * halfValue(b) + halfValue(c));
  return exactToHalf(exactAdd(exactMul(halfExact(a), halfExact(b)), halfExact(c)));
}
// min.f16 / max.f16: same rules as f32 (NaN loses, -0 < +0, both NaN give the canonical 0x7fff).
inline uint16_t hmin(uint16_t a, uint16_t b) {
  if (halfIsNaN(a) && halfIsNaN(b)) return 0x7fff;
  if (halfIsNaN(a)) return b;
  if (halfIsNaN(b)) return a;
  double x = halfValue(a), y = halfValue(b);
  if (x == 0 && y == 0) return (a & 0x8000) ? a : b;
  return x < y ? a : b;
}
inline uint16_t hmax(uint16_t a, uint16_t b) {
  if (halfIsNaN(a) && halfIsNaN(b)) return 0x7fff;
  if (halfIsNaN(a)) return b;
  if (halfIsNaN(b)) return a;
  double x = halfValue(a), y = halfValue(b);
  if (x == 0 && y == 0) return (a & 0x8000) ? b : a;
  return x > y ? a : b;
}

// ---- warp operations --------------------------------------------------------------------------

enum class ShflMode { Up, Down, Bfly, Idx };
// The lane shfl.sync.{up,down,bfly,idx}.b32 d, a, b, c reads (PTX ISA): b's low 5 bits are the
// lane or offset, c packs the clamp value (bits 0-4) and the segment mask (bits 8-12); when the
// computed source lies outside the segment the thread reads its own value.
inline uint32_t shflSourceLane(ShflMode mode, uint32_t lane, uint32_t b, uint32_t c) {
  int32_t bval = static_cast<int32_t>(b & 31), cval = static_cast<int32_t>(c & 31);
  int32_t segmask = static_cast<int32_t>((c >> 8) & 31);
  int32_t l = static_cast<int32_t>(lane);
  int32_t maxLane = (l & segmask) | (cval & ~segmask);
  int32_t minLane = l & segmask;
  int32_t j = l;
  bool p = false;
  switch (mode) {
    case ShflMode::Up: j = l - bval; p = j >= maxLane; break;
    case ShflMode::Down: j = l + bval; p = j <= maxLane; break;
    case ShflMode::Bfly: j = l ^ bval; p = j <= maxLane; break;
    case ShflMode::Idx: j = minLane | (bval & ~segmask); p = j <= maxLane; break;
  }
  return static_cast<uint32_t>(p ? j : l);
}
// The c operand CUDA's __shfl_*_sync(mask, v, x, width) passes.
inline uint32_t shflC(ShflMode mode, uint32_t width) {
  return ((32u - width) << 8) | (mode == ShflMode::Up ? 0u : 0x1fu);
}
// One shuffle over a whole warp: out[lane] = v[source lane].
template <typename T>
std::array<T, 32> shflWarp(const std::array<T, 32>& v, ShflMode mode, const std::array<uint32_t, 32>& b, uint32_t c) {
  std::array<T, 32> out{};
  for (uint32_t l = 0; l < 32; ++l) out[l] = v[shflSourceLane(mode, l, b[l], c)];
  return out;
}
template <typename T>
std::array<T, 32> shflWarp(const std::array<T, 32>& v, ShflMode mode, uint32_t b, uint32_t c) {
  std::array<uint32_t, 32> bs;
  bs.fill(b);
  return shflWarp(v, mode, bs, c);
}

// ---- text ------------------------------------------------------------------------------------

// snprintf into a std::string (printf emulation: the same conversions as C printf).
template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char small[512];
  int n = std::snprintf(small, sizeof small, fmt, args...);
  if (n < 0) throw std::runtime_error("format failed");
  if (static_cast<size_t>(n) < sizeof small) return std::string(small, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), fmt, args...);
  s.resize(static_cast<size_t>(n));
  return s;
}

}  // namespace ptxopt::ref
