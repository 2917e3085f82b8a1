// Compiled with -frounding-math: the compiler must not fold or move floating-point operations
// across the rounding-mode changes below.
#include "FloatOps.h"

#include <cfenv>
#include <cmath>
#include <limits>

#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {

namespace {

int feMode(Rnd r) {
  switch (r) {
    case Rnd::Nearest: return FE_TONEAREST;
    case Rnd::Zero: return FE_TOWARDZERO;
    case Rnd::Down: return FE_DOWNWARD;
    case Rnd::Up: return FE_UPWARD;
  }
  return FE_TONEAREST;
}

// Sets the host rounding mode for a scope; round-to-nearest (the default) costs nothing.
class RoundingScope {
 public:
  explicit RoundingScope(Rnd r) : active_(r != Rnd::Nearest) {
    if (active_) std::fesetround(feMode(r));
  }
  ~RoundingScope() {
    if (active_) std::fesetround(FE_TONEAREST);
  }

 private:
  bool active_;
};

// a*b+c rounded to odd in double: round toward zero, and set the last bit when inexact. A
// second rounding of that result to a format of at most 51 bits is then correct.
double fmaToOdd(double a, double b, double c) {
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile double r = std::fma(a, b, c);
  bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  double out = r;
  if (inexact && std::isfinite(out)) out = bitsDouble(doubleBits(out) | 1);
  return out;
}

}  // namespace

Rnd arithRounding(std::optional<Rounding> r) {
  if (!r) return Rnd::Nearest;
  switch (*r) {
    case Rounding::Rz:
    case Rounding::Rzi: return Rnd::Zero;
    case Rounding::Rm:
    case Rounding::Rmi: return Rnd::Down;
    case Rounding::Rp:
    case Rounding::Rpi: return Rnd::Up;
    default: return Rnd::Nearest;
  }
}

float addF(float a, float b, Rnd r) { RoundingScope s(r); volatile float x = a + b; return x; }
float subF(float a, float b, Rnd r) { RoundingScope s(r); volatile float x = a - b; return x; }
float mulF(float a, float b, Rnd r) { RoundingScope s(r); volatile float x = a * b; return x; }
float divF(float a, float b, Rnd r) { RoundingScope s(r); volatile float x = a / b; return x; }
float fmaF(float a, float b, float c, Rnd r) { RoundingScope s(r); volatile float x = std::fmaf(a, b, c); return x; }
float sqrtF(float a, Rnd r) { RoundingScope s(r); volatile float x = std::sqrt(a); return x; }
float rcpF(float a, Rnd r) { RoundingScope s(r); volatile float x = 1.0f / a; return x; }
double addD(double a, double b, Rnd r) { RoundingScope s(r); volatile double x = a + b; return x; }
double subD(double a, double b, Rnd r) { RoundingScope s(r); volatile double x = a - b; return x; }
double mulD(double a, double b, Rnd r) { RoundingScope s(r); volatile double x = a * b; return x; }
double divD(double a, double b, Rnd r) { RoundingScope s(r); volatile double x = a / b; return x; }
double fmaD(double a, double b, double c, Rnd r) { RoundingScope s(r); volatile double x = std::fma(a, b, c); return x; }
double sqrtD(double a, Rnd r) { RoundingScope s(r); volatile double x = std::sqrt(a); return x; }
double rcpD(double a, Rnd r) { RoundingScope s(r); volatile double x = 1.0 / a; return x; }

uint16_t doubleToHalfR(double d, bool bf, Rnd r) {
  const int expBits = bf ? 8 : 5, manBits = bf ? 7 : 10;
  if (r == Rnd::Nearest || std::isnan(d) || d == 0) return roundDoubleToSmallFloat(d, expBits, manBits);
  // Directed rounding: round to nearest, then step one ulp toward the requested direction if
  // that went the wrong way.
  uint16_t h = roundDoubleToSmallFloat(d, expBits, manBits);
  double back = smallFloatToDouble(h, expBits, manBits);
  if (back == d) return h;
  bool neg = std::signbit(d);
  bool tooBig = std::fabs(back) > std::fabs(d);
  bool wantSmallerMagnitude = r == Rnd::Zero || (r == Rnd::Down && !neg) || (r == Rnd::Up && neg);
  uint16_t magnitude = h & static_cast<uint16_t>((1u << (expBits + manBits)) - 1);
  uint16_t sign = h & static_cast<uint16_t>(1u << (expBits + manBits));
  if (wantSmallerMagnitude && tooBig) --magnitude;
  else if (!wantSmallerMagnitude && !tooBig) ++magnitude;
  return static_cast<uint16_t>(sign | magnitude);
}

uint16_t halfArith(HalfOp op, uint16_t a, uint16_t b, uint16_t c, bool bf, Rnd r) {
  const int expBits = bf ? 8 : 5, manBits = bf ? 7 : 10;
  double x = smallFloatToDouble(a, expBits, manBits);
  double y = smallFloatToDouble(b, expBits, manBits);
  double z;
  switch (op) {
    case HalfOp::Add: z = fmaToOdd(x, 1.0, y); break;
    case HalfOp::Sub: z = fmaToOdd(x, 1.0, -y); break;
    case HalfOp::Mul: z = fmaToOdd(x, y, 0.0); break;
    case HalfOp::Fma: z = fmaToOdd(x, y, smallFloatToDouble(c, expBits, manBits)); break;
    default: z = 0;
  }
  // -0.0 from x*y + 0.0 must keep the sign of the product.
  if (op == HalfOp::Mul && z == 0) z = std::signbit(x) != std::signbit(y) ? -0.0 : 0.0;
  return doubleToHalfR(z, bf, r);
}

float doubleToFloat(double d, Rnd r) {
  RoundingScope s(r);
  volatile float f = static_cast<float>(d);
  return f;
}

double intToDouble(uint64_t bits, bool isSigned, Rnd r) {
  RoundingScope s(r);
  volatile double d = isSigned ? static_cast<double>(static_cast<int64_t>(bits)) : static_cast<double>(bits);
  return d;
}

float intToFloat(uint64_t bits, bool isSigned, Rnd r) {
  RoundingScope s(r);
  volatile float f = isSigned ? static_cast<float>(static_cast<int64_t>(bits)) : static_cast<float>(bits);
  return f;
}

double roundIntegral(double d, Rnd r) {
  switch (r) {
    case Rnd::Nearest: return std::nearbyint(d);  // the default mode: ties to even
    case Rnd::Zero: return std::trunc(d);
    case Rnd::Down: return std::floor(d);
    case Rnd::Up: return std::ceil(d);
  }
  return d;
}

uint64_t floatToInt(double d, Rnd r, bool isSigned, unsigned bits) {
  if (std::isnan(d)) return 0;
  double v = roundIntegral(d, r);
  if (isSigned) {
    double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1);
    double hi = std::ldexp(1.0, static_cast<int>(bits) - 1);  // exclusive
    int64_t out;
    if (v <= lo) out = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
    else if (v >= hi) out = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
    else out = static_cast<int64_t>(v);
    uint64_t u = static_cast<uint64_t>(out);
    return bits == 64 ? u : u & ((uint64_t(1) << bits) - 1);
  }
  double hi = std::ldexp(1.0, static_cast<int>(bits));
  if (v <= 0) return 0;
  if (v >= hi) return bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << bits) - 1;
  return static_cast<uint64_t>(v);
}

}  // namespace ptxopt::emu
