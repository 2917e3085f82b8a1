// IEEE arithmetic under the PTX rounding modifiers (.rn .rz .rm .rp), exactly: f32 and f64
// operations run natively in the requested rounding mode; f16/bf16 operations are computed
// with an intermediate rounding to odd and rounded once to the 16-bit format.
#pragma once

#include <cstdint>

#include "ptxopt/ir/Types.h"

namespace ptxopt::emu {

// Rounding for arithmetic: .rn (default), .rz, .rm, .rp.
enum class Rnd : uint8_t { Nearest, Zero, Down, Up };
Rnd arithRounding(std::optional<Rounding> r);

float addF(float a, float b, Rnd r);
float subF(float a, float b, Rnd r);
float mulF(float a, float b, Rnd r);
float divF(float a, float b, Rnd r);
float fmaF(float a, float b, float c, Rnd r);
float sqrtF(float a, Rnd r);
float rcpF(float a, Rnd r);
double addD(double a, double b, Rnd r);
double subD(double a, double b, Rnd r);
double mulD(double a, double b, Rnd r);
double divD(double a, double b, Rnd r);
double fmaD(double a, double b, double c, Rnd r);
double sqrtD(double a, Rnd r);
double rcpD(double a, Rnd r);

// 16-bit formats (bits in, bits out); `bf` selects bfloat16 over IEEE half.
enum class HalfOp : uint8_t { Add, Sub, Mul, Fma };
uint16_t halfArith(HalfOp op, uint16_t a, uint16_t b, uint16_t c, bool bf, Rnd r);

// Conversions.
float doubleToFloat(double d, Rnd r);
uint16_t doubleToHalfR(double d, bool bf, Rnd r);
double intToDouble(uint64_t bits, bool isSigned, Rnd r);  // exact for the double
float intToFloat(uint64_t bits, bool isSigned, Rnd r);
// Float to integer: rounding .rni/.rzi/.rmi/.rpi (nearest even, toward zero, down, up), then
// saturated to the destination range; NaN gives 0 (the PTX rule for float-to-integer cvt).
uint64_t floatToInt(double d, Rnd r, bool isSigned, unsigned bits);
// Round a float to an integral value in the same format (cvt.rni.f32.f32 and friends).
double roundIntegral(double d, Rnd r);

}  // namespace ptxopt::emu
