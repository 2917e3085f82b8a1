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
  uint16_t m = 0, n = 0, k = 0;  // wgmma: n up to 256
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

// ---- warpgroup MMA (wgmma, sm_90a) -------------------------------------------------------------
// The 64-bit shared-memory matrix descriptor of wgmma.mma_async (PTX ISA, section 9.7.15.5.1.2.2
// "Matrix Descriptor Format"): bits 0-13 the start address, 16-29 the leading-dimension byte
// offset, 32-45 the stride-dimension byte offset (each field the byte value >> 4), 49-51 the
// base offset, 62-63 the swizzle mode. Byte values here.
enum class Swizzle : uint8_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };
struct MatrixDescriptor {
  uint32_t start = 0, leading = 0, stride = 0;  // bytes
  uint8_t baseOffset = 0;
  Swizzle swizzle = Swizzle::None;
};
MatrixDescriptor decodeMatrixDescriptor(uint64_t bits);
// The width in bytes of a swizzle mode's rows (128, 64, 32; none: 16, one core-matrix row).
unsigned swizzleBytes(Swizzle s);
// The shared-memory address a swizzle mode turns byte address `a` into (PTX ISA, section
// 9.7.15.5.1.2 "Shared Memory Matrix Layout", the swizzling modes): within each group of 8 rows of
// swizzleBytes(s) bytes, the 16-byte chunk index (bits 4 and up, as many bits as the row has
// chunks) is XORed with the row index in the group (bits 7 and up, as many bits). Address bits,
// not offsets from the matrix start: the pattern repeats every 8 rows of the shared window.
uint32_t swizzleAddress(Swizzle s, uint32_t a);
// The shared-memory address of element (mn, k) of the matrix a descriptor describes (A: mn a row
// of M; B: mn a column of N), elements of `elemBytes` bytes. `mnMajor`: the matrix is stored
// with consecutive mn contiguous (imm-trans 1, 16-bit elements only); else consecutive k.
// The canonical layouts (PTX ISA, section 9.7.15.5.1.2), in units of a core matrix, 8 rows of
// 16 bytes:
//  * K-major, no swizzle: row mn % 8 of a core matrix at 16 (mn % 8); core matrices along k
//    `leading` bytes apart, along mn `stride` bytes apart.
//  * K-major, swizzled (W = 32, 64, 128 bytes): row mn % 8 at W (mn % 8), k contiguous in the
//    row; groups of 8 rows `stride` bytes apart.
//  * MN-major, no swizzle: k % 8 at 16 (k % 8), mn contiguous for 16 bytes; core matrices along
//    mn `stride` bytes apart, along k `leading` bytes apart.
//  * MN-major, swizzled: mn contiguous for W bytes, k % 8 at W (k % 8); W-byte column blocks
//    along mn `leading` bytes apart, groups of 8 k `stride` bytes apart.
// The swizzle applies to the result (swizzleAddress). A base offset other than 0 (the ISA: for a
// swizzle pattern that does not start at a multiple of 8 rows of its width) is not emulated:
// wgmma.mma_async faults on one at issue.
uint32_t descriptorElementAddress(const MatrixDescriptor& d, unsigned elemBytes, bool mnMajor, unsigned mn, unsigned k);

}  // namespace ptxopt::emu
