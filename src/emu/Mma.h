// The tensor-core core of the emulator: the one multiply-accumulate rule that mma.sync and
// wmma.mma compute (docs/EMULATOR.md, "Tensor cores"), and the fragment layouts that say which
// lane holds which matrix element. Internal to src/emu; no state, no memory access.
#pragma once

#include <cstdint>

namespace ptxopt::emu {

// Element types of the multiplicands and accumulators.
enum class MmaType : uint8_t { None, F16, BF16, TF32, F32, F64, S8, U8, S32 };

// Bits one element takes in its register (f16/bf16: 16, two to a .b32; s8/u8: 8, four to a .b32;
// tf32, f32, s32: 32; f64: 64).
unsigned mmaTypeBits(MmaType t);
// Elements of type `t` one 32-bit fragment register holds (an f64 takes a 64-bit register).
unsigned mmaPerRegister(MmaType t);
const char* mmaTypeName(MmaType t);

// One matrix multiply-accumulate D = A * B + C: A is m x k, B is k x n, C and D are m x n (or
// several of them side by side: `groups`).
struct MmaForm {
  uint8_t m = 0, n = 0, k = 0;
  MmaType a = MmaType::None, b = MmaType::None, c = MmaType::None, d = MmaType::None;
  bool satfinite = false;  // integer: clamp to the s32 range instead of wrapping
  // Independent multiply-accumulates in one instruction (sm_70's mma.m8n8k4 .f16: 4, one per
  // quad-pair): A stacks the groups' rows ((groups m) x k), B their columns (k x (groups n)), C
  // and D their rows ((groups m) x n); group q multiplies its rows of A by its columns of B.
  uint8_t groups = 1;
  bool aColMajor = false, bColMajor = true;  // m8n8k4 .f16: the register layouts .alayout.blayout
};

// Computes D from A, B and C, each matrix row-major, one element per entry as its raw bits (an
// f16 in the low 16 bits, an s8 in the low 8). The rule, exactly (the same for every instruction):
//  * floating point (f16, bf16, tf32 multiplicands): every element is converted to f32 exactly
//    (tf32: the low 13 bits of its .b32 are ignored); D(i,j) starts as C(i,j) in f32 (an f16
//    accumulator converted exactly) and takes, for p = 0 .. k-1 in order, one fused
//    multiply-add acc = fma(A(i,p), B(p,j), acc) rounded to nearest even; the products are
//    exact in f32. An f16 D is the f32 result rounded to nearest even once. A NaN result is the
//    canonical NaN (0x7fffffff, or 0x7fff for f16).
//  * f64: the same with fma in f64.
//  * integer (s8/u8): the exact sum of C and the products (no overflow in 64 bits), then
//    wrapped to 32 bits, or with `satfinite` clamped to [INT32_MIN, INT32_MAX].
void multiplyAccumulate(const MmaForm& f, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D);

// Which matrix of a multiply-accumulate a fragment holds (C's layout is D's).
enum class MatrixRole : uint8_t { A, B, C };

struct MatrixCoord {
  uint8_t row = 0, col = 0;
};

// A fragment layout: element `i` (0 .. perLane-1, low to high through the registers) of lane
// `lane` is element at(lane, i) of the rows x cols matrix. A fragment with more elements than
// perLane repeats the layout (element i is element i % perLane).
struct FragmentLayout {
  uint8_t rows = 0, cols = 0;
  uint8_t perLane = 0;
  MatrixCoord (*at)(int lane, int i) = nullptr;
  explicit operator bool() const { return at != nullptr; }
};

// mma.sync's fragments, as the PTX ISA lays them out ("Matrix Fragments for mma.mMnNkK",
// section 9.7.14.5 of PTX ISA 9.0). Empty for a form the emulator does not run.
FragmentLayout mmaFragment(const MmaForm& f, MatrixRole r);
// wmma's fragments. The PTX ISA leaves them to the implementation; the emulator uses mma.sync's
// m16n8k16 (or m16n8k8, m8n8k4) fragments side by side (docs/EMULATOR.md, "Tensor cores").
FragmentLayout wmmaFragment(const MmaForm& f, MatrixRole r);
// The fragment of one 8x8 matrix of 16-bit elements that ldmatrix, stmatrix and movmatrix use
// (PTX ISA 9.0, 9.7.14.5.15 "ldmatrix", Figure 104): lane l holds row l / 4, columns
// 2 * (l % 4) and 2 * (l % 4) + 1, the lower column in the low half of its register.
inline MatrixCoord matrix8x8Element(int lane, int i) {
  return MatrixCoord{static_cast<uint8_t>(lane >> 2), static_cast<uint8_t>((lane & 3) * 2 + i)};
}

}  // namespace ptxopt::emu
