// The multiply-accumulate rule of the tensor-core instructions and their fragment layouts
// (Mma.h; docs/EMULATOR.md, "Tensor cores").
#include "Mma.h"

#include <cmath>
#include <cstdint>

#include "Kernels.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {

unsigned mmaTypeBits(MmaType t) {
  switch (t) {
    case MmaType::F16:
    case MmaType::BF16:
      return 16;
    case MmaType::S8:
    case MmaType::U8:
      return 8;
    case MmaType::F64:
      return 64;
    case MmaType::None:
      return 0;
    default:
      return 32;
  }
}

unsigned mmaPerRegister(MmaType t) { return t == MmaType::F64 ? 1 : 32 / mmaTypeBits(t); }

const char* mmaTypeName(MmaType t) {
  switch (t) {
    case MmaType::F16:
      return "f16";
    case MmaType::BF16:
      return "bf16";
    case MmaType::TF32:
      return "tf32";
    case MmaType::F32:
      return "f32";
    case MmaType::F64:
      return "f64";
    case MmaType::S8:
      return "s8";
    case MmaType::U8:
      return "u8";
    case MmaType::S32:
      return "s32";
    case MmaType::None:
      break;
  }
  return "none";
}

namespace {

// An element's value in f32; exact for every multiplicand and accumulator type but f64.
float toFloat(MmaType t, uint64_t bits) {
  switch (t) {
    case MmaType::F16:
      return static_cast<float>(halfToDouble(static_cast<uint16_t>(bits)));
    case MmaType::BF16:
      return static_cast<float>(bfloat16ToDouble(static_cast<uint16_t>(bits)));
    case MmaType::TF32:
      return bitsFloat(static_cast<uint32_t>(bits) & 0xFFFFE000u);  // 10 mantissa bits
    default:
      return bitsFloat(static_cast<uint32_t>(bits));
  }
}

int64_t toInt(MmaType t, uint64_t bits) {
  switch (t) {
    case MmaType::S8:
      return static_cast<int8_t>(bits & 0xFF);
    case MmaType::U8:
      return static_cast<int64_t>(bits & 0xFF);
    default:
      return static_cast<int32_t>(bits & 0xFFFFFFFFu);
  }
}

// One element's chain acc = fma(a[p], b[p], acc) for p = 0 .. k-1, compiled twice like
// Kernels.cpp's fma loops: with the host's fused instruction where the CPU has one (chosen at run
// time), through libm otherwise. Both round the same.
[[gnu::always_inline]] inline float fmaChain(const float* a, const float* b, int k, float acc) {
  for (int p = 0; p < k; ++p) acc = std::fma(a[p], b[p], acc);
  return acc;
}
float fmaChainLibm(const float* a, const float* b, int k, float acc) {
  return fmaChain(a, b, k, acc);
}
#if defined(__x86_64__)
__attribute__((target("fma"))) float fmaChainHost(const float* a, const float* b, int k, float acc) {
  return fmaChain(a, b, k, acc);
}
#else
float fmaChainHost(const float* a, const float* b, int k, float acc) {
  return fmaChain(a, b, k, acc);
}
#endif

uint64_t fromFloat(MmaType t, float v) {
  if (std::isnan(v)) return t == MmaType::F16 ? 0x7FFFu : 0x7FFFFFFFu;
  if (t == MmaType::F16) return doubleToHalf(static_cast<double>(v));  // one rounding: f32 -> f64 is exact
  return floatBits(v);
}

// One group's D = A * B + C (MmaForm::groups): A's rows from a0 (row stride k), B's columns from
// b0 (row stride ldb), C's and D's rows from c0 (row stride n).
void multiplyAccumulateGroup(const MmaForm& f, const uint64_t* A, const uint64_t* B, int ldb, const uint64_t* C,
                             uint64_t* D) {
  const int m = f.m, n = f.n, k = f.k;
  if (f.a == MmaType::F64) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = bitsDouble(C[i * n + j]);
        for (int p = 0; p < k; ++p) acc = std::fma(bitsDouble(A[i * k + p]), bitsDouble(B[p * ldb + j]), acc);
        D[i * n + j] = std::isnan(acc) ? 0x7FFFFFFFFFFFFFFFull : doubleBits(acc);
      }
    return;
  }
  if (f.a == MmaType::S8 || f.a == MmaType::U8) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        int64_t acc = toInt(MmaType::S32, C[i * n + j]);
        for (int p = 0; p < k; ++p) acc += toInt(f.a, A[i * k + p]) * toInt(f.b, B[p * ldb + j]);
        if (f.satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
        D[i * n + j] = static_cast<uint32_t>(static_cast<uint64_t>(acc));
      }
    return;
  }
  // The multiplicands in f32 once (B by columns), then one fma chain per element.
  float a[32 * 32], bt[32 * 32];
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) a[i * k + p] = toFloat(f.a, A[i * k + p]);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) bt[j * k + p] = toFloat(f.b, B[p * ldb + j]);
  const auto chain = hostHasFma() ? fmaChainHost : fmaChainLibm;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      D[i * n + j] = fromFloat(f.d, chain(a + i * k, bt + j * k, k, toFloat(f.c, C[i * n + j])));
}

}  // namespace

void multiplyAccumulate(const MmaForm& f, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D) {
  const int ldb = f.n * f.groups;
  for (int q = 0; q < f.groups; ++q)
    multiplyAccumulateGroup(f, A + q * f.m * f.k, B + q * f.n, ldb, C + q * f.m * f.n, D + q * f.m * f.n);
}

// ---- fragment layouts ---------------------------------------------------------------------------
// The formulas of PTX ISA 9.0, section 9.7.14.5 ("Matrix Fragments for mma.m16n8k16 with floating
// point type", "... for mma.m16n8k8", "... for mma.m16n8k4", "... mma.m16n8k16 with integer type",
// "... mma.m16n8k32", "... mma.m8n8k4 with .f64", "... mma.m8n8k16"): with g = lane / 4 (groupID)
// and t = lane % 4 (threadID_in_group), element i of a lane's fragment is:

namespace {

using Coord = MatrixCoord;
Coord at(int row, int col) {
  return Coord{static_cast<uint8_t>(row), static_cast<uint8_t>(col)};
}
int grp(int lane) {
  return lane >> 2;
}
int tig(int lane) {
  return lane & 3;
}

// m16n8k16 f16/bf16 A (16 x 16, 8 per lane): rows g, g+8, g, g+8 by pairs; columns 2t + (i & 1), +8 from a4.
Coord a16816f(int l, int i) {
  return at(grp(l) + ((i >> 1) & 1) * 8, tig(l) * 2 + (i & 1) + (i >= 4) * 8);
}
// m16n8k16 f16/bf16 B (16 x 8, 4 per lane): rows 2t + (i & 1), +8 from b2; column g.
Coord b16816f(int l, int i) {
  return at(tig(l) * 2 + (i & 1) + (i >= 2) * 8, grp(l));
}
// Accumulators of every m16n8 shape (16 x 8, 4 per lane): row g (c0, c1) or g+8 (c2, c3); column 2t + (i & 1).
Coord c168(int l, int i) {
  return at(grp(l) + (i >= 2) * 8, tig(l) * 2 + (i & 1));
}
// m16n8k8 f16/bf16 A (16 x 8, 4 per lane): rows g (a0, a1), g+8 (a2, a3); columns 2t + (i & 1).
Coord a1688f(int l, int i) {
  return at(grp(l) + (i >= 2) * 8, tig(l) * 2 + (i & 1));
}
// m16n8k8 f16/bf16 B (8 x 8, 2 per lane): rows 2t + i; column g.
Coord b1688f(int l, int i) {
  return at(tig(l) * 2 + i, grp(l));
}
// m16n8k8 tf32 and f64 A (16 x 8, 4 per lane): rows g (a0, a2), g+8 (a1, a3); columns t (a0, a1), t+4 (a2, a3).
Coord a1688tf32(int l, int i) {
  return at(grp(l) + (i & 1) * 8, tig(l) + (i >= 2) * 4);
}
// m16n8k8 tf32 and f64 B (8 x 8, 2 per lane): rows t (b0), t+4 (b1); column g.
Coord b1688tf32(int l, int i) {
  return at(tig(l) + i * 4, grp(l));
}
// m16n8k16 s8/u8 A (16 x 16, 8 per lane): rows g (a0..a3), g+8 (a4..a7); columns 4t + (i & 3).
Coord a16816i(int l, int i) {
  return at(grp(l) + (i >= 4) * 8, tig(l) * 4 + (i & 3));
}
// m16n8k16 s8/u8 B (16 x 8, 4 per lane): rows 4t + i; column g.
Coord b16816i(int l, int i) {
  return at(tig(l) * 4 + i, grp(l));
}
// m16n8k32 s8/u8 A (16 x 32, 16 per lane): rows g (a0..a3, a8..a11), g+8 (the others); columns 4t + (i & 3), +16 from
// a8.
Coord a16832i(int l, int i) {
  return at(grp(l) + ((i >> 2) & 1) * 8, tig(l) * 4 + (i & 3) + (i >= 8) * 16);
}
// m16n8k32 s8/u8 B (32 x 8, 8 per lane): rows 4t + (i & 3), +16 from b4; column g.
Coord b16832i(int l, int i) {
  return at(tig(l) * 4 + (i & 3) + (i >= 4) * 16, grp(l));
}
// m8n8k4 f64: A (8 x 4, 1 per lane) row g, column t; B (4 x 8, 1) row t, column g; C (8 x 8, 2) row g, columns 2t + i.
Coord a884d(int l, int) {
  return at(grp(l), tig(l));
}
Coord b884d(int l, int) {
  return at(tig(l), grp(l));
}
Coord c88(int l, int i) {
  return at(grp(l), tig(l) * 2 + i);
}
// m8n8k16 s8/u8: A (8 x 16, 4 per lane) row g, columns 4t + i; B (16 x 8, 4) rows 4t + i, column g.
Coord a8816i(int l, int i) {
  return at(grp(l), tig(l) * 4 + i);
}
Coord b8816i(int l, int i) {
  return at(tig(l) * 4 + i, grp(l));
}
// m16n8k4 tf32/f64: A (16 x 4, 2 per lane) rows g (a0), g+8 (a1), column t; B (4 x 8, 1) row t, column g.
Coord a1684(int l, int i) {
  return at(grp(l) + i * 8, tig(l));
}
Coord b1684(int l, int) {
  return at(tig(l), grp(l));
}
// m16n8k16 f64: A (16 x 16, 8 per lane) row g (even i) or g+8 (odd i), column 4 (i / 2) + t;
// B (16 x 8, 4 per lane) row t + 4i, column g.
Coord a16816d(int l, int i) {
  return at(grp(l) + (i & 1) * 8, (i >> 1) * 4 + tig(l));
}
Coord b16816d(int l, int i) {
  return at(tig(l) + i * 4, grp(l));
}
// sm_70's m8n8k4 .f16 ("Matrix Fragments for mma.m8n8k4 with .f16 floating point type"): four
// multiply-accumulates, computation q = (lane / 4) % 4 by lanes 4q..4q+3 (low) and 16+4q..16+4q+3
// (high); with r = lane % 4 and h = 4 for the high lanes, 0 for the low ones, in the stacked
// matrices of MmaForm::groups (group q's rows or columns start at 8q):
int quad(int l) {
  return ((l >> 2) & 3) * 8;
}
int half(int l) {
  return l >= 16 ? 4 : 0;
}
// A .row: row r + h, column i; A .col: row i + h, column r (4 per lane).
Coord a884hRow(int l, int i) {
  return at(quad(l) + (l & 3) + half(l), i);
}
Coord a884hCol(int l, int i) {
  return at(quad(l) + i + half(l), l & 3);
}
// B .row: row r, column i + h; B .col: row i, column r + h (4 per lane).
Coord b884hRow(int l, int i) {
  return at(l & 3, quad(l) + i + half(l));
}
Coord b884hCol(int l, int i) {
  return at(i, quad(l) + (l & 3) + half(l));
}
// C/D .f16: row r + h, column i (8 per lane); .f32: row (lane & 1) + (i & 2) + h, column
// (i & 4) + (lane & 2) + (i & 1).
Coord c884h16(int l, int i) {
  return at(quad(l) + (l & 3) + half(l), i);
}
Coord c884h32(int l, int i) {
  return at(quad(l) + (l & 1) + (i & 2) + half(l), (i & 4) + (l & 2) + (i & 1));
}

FragmentLayout layout(int rows, int cols, int perLane, Coord (*fn)(int, int)) {
  return FragmentLayout{static_cast<uint8_t>(rows), static_cast<uint8_t>(cols), static_cast<uint8_t>(perLane), fn};
}

bool isHalf(MmaType t) {
  return t == MmaType::F16 || t == MmaType::BF16;
}
bool isByte(MmaType t) {
  return t == MmaType::S8 || t == MmaType::U8;
}
bool shape(const MmaForm& f, int m, int n, int k) {
  return f.m == m && f.n == n && f.k == k;
}

// The accumulator types each multiplicand type allows.
bool accumulatorsFit(const MmaForm& f) {
  if (isHalf(f.a)) {
    if (f.a != f.b) return false;
    const bool f16Acc = f.a == MmaType::F16 && (f.c == MmaType::F16 || f.c == MmaType::F32) &&
                        (f.d == MmaType::F16 || f.d == MmaType::F32);
    return f16Acc || (f.c == MmaType::F32 && f.d == MmaType::F32);
  }
  if (f.a == MmaType::TF32) return f.b == MmaType::TF32 && f.c == MmaType::F32 && f.d == MmaType::F32;
  if (isByte(f.a)) return isByte(f.b) && f.c == MmaType::S32 && f.d == MmaType::S32;
  if (f.a == MmaType::F64) return f.b == MmaType::F64 && f.c == MmaType::F64 && f.d == MmaType::F64;
  return false;
}

}  // namespace

FragmentLayout mmaFragment(const MmaForm& f, MatrixRole r) {
  if (!accumulatorsFit(f) || (f.satfinite && !isByte(f.a))) return {};
  if (f.groups != (shape(f, 8, 8, 4) && f.a == MmaType::F16 ? 4 : 1)) return {};
  const bool A = r == MatrixRole::A, B = r == MatrixRole::B;
  if (shape(f, 16, 8, 16) && isHalf(f.a))
    return A ? layout(16, 16, 8, a16816f) : B ? layout(16, 8, 4, b16816f) : layout(16, 8, 4, c168);
  if (shape(f, 16, 8, 8) && isHalf(f.a))
    return A ? layout(16, 8, 4, a1688f) : B ? layout(8, 8, 2, b1688f) : layout(16, 8, 4, c168);
  if (shape(f, 16, 8, 8) && (f.a == MmaType::TF32 || f.a == MmaType::F64))
    return A ? layout(16, 8, 4, a1688tf32) : B ? layout(8, 8, 2, b1688tf32) : layout(16, 8, 4, c168);
  if (shape(f, 16, 8, 16) && isByte(f.a))
    return A ? layout(16, 16, 8, a16816i) : B ? layout(16, 8, 4, b16816i) : layout(16, 8, 4, c168);
  if (shape(f, 16, 8, 32) && isByte(f.a))
    return A ? layout(16, 32, 16, a16832i) : B ? layout(32, 8, 8, b16832i) : layout(16, 8, 4, c168);
  if (shape(f, 8, 8, 16) && isByte(f.a))
    return A ? layout(8, 16, 4, a8816i) : B ? layout(16, 8, 4, b8816i) : layout(8, 8, 2, c88);
  if (shape(f, 8, 8, 4) && f.a == MmaType::F64)
    return A ? layout(8, 4, 1, a884d) : B ? layout(4, 8, 1, b884d) : layout(8, 8, 2, c88);
  if (shape(f, 16, 8, 4) && (f.a == MmaType::TF32 || f.a == MmaType::F64))
    return A ? layout(16, 4, 2, a1684) : B ? layout(4, 8, 1, b1684) : layout(16, 8, 4, c168);
  if (shape(f, 16, 8, 16) && f.a == MmaType::F64)
    return A ? layout(16, 16, 8, a16816d) : B ? layout(16, 8, 4, b16816d) : layout(16, 8, 4, c168);
  if (shape(f, 8, 8, 4) && f.a == MmaType::F16 && f.groups == 4) {
    // C's layout follows .ctype and D's .dtype: the emulator runs the forms where they agree.
    if (f.c != f.d) return {};
    if (A) return layout(32, 4, 4, f.aColMajor ? a884hCol : a884hRow);
    if (B) return layout(4, 32, 4, f.bColMajor ? b884hCol : b884hRow);
    return layout(32, 8, 8, f.c == MmaType::F16 ? c884h16 : c884h32);
  }
  return {};
}

// ---- wmma ---------------------------------------------------------------------------------------
// The emulator's wmma fragments are mma.sync fragments placed side by side: a 16 x 16 tile is two
// m16n8 tiles (n 0-7, then n 8-15), a 32-row tile two 16-row tiles (rows 0-15, then 16-31), an
// 8-row tile the rows 0-7 of the 16-row fragment. Where PTX gives a fragment more registers than
// the matrix needs per lane (the f16 A and B of m16n16k16: 8 registers for 8 elements), the
// elements repeat.

namespace {

// f16/bf16 B of 16 or 32 columns, and 16 x 16 accumulators: the m16n8 fragment for columns
// 0-7, then for 8-15 (and so on).
Coord wbHalf(int l, int i) {
  Coord c = b16816f(l, i & 3);
  c.col = static_cast<uint8_t>(c.col + (i >> 2) * 8);
  return c;
}
Coord wc16x16(int l, int i) {
  Coord c = c168(l, i & 3);
  c.col = static_cast<uint8_t>(c.col + (i >> 2) * 8);
  return c;
}
// 32-row A (32 x 16) and accumulators (32 x 8): the 16-row fragment for rows 0-15, then 16-31.
Coord wa32x16f(int l, int i) {
  Coord c = a16816f(l, i & 7);
  c.row = static_cast<uint8_t>(c.row + (i >> 3) * 16);
  return c;
}
Coord wc32x8(int l, int i) {
  Coord c = c168(l, i & 3);
  c.row = static_cast<uint8_t>(c.row + (i >> 2) * 16);
  return c;
}
// 8-row A (8 x 16) and accumulators (8 x 32): the rows-0-7 elements of the 16-row fragments.
Coord wa8x16f(int l, int i) {
  return at(grp(l), tig(l) * 2 + (i & 1) + (i >> 1) * 8);
}
Coord wc8x32(int l, int i) { return wa8x16f(l, i); }  // the same positions, over 32 columns
// tf32 m16n16k8: B (8 x 16) is the m16n8k8 B for columns 0-7, then 8-15.
Coord wb8x16tf32(int l, int i) {
  Coord c = b1688tf32(l, i & 1);
  c.col = static_cast<uint8_t>(c.col + (i >> 1) * 8);
  return c;
}
// s8/u8: B 16 x 16 and 16 x 32 in m16n8k16 B blocks of 8 columns; A 32 x 16 in two 16-row blocks; A 8 x 16 rows 0-7.
Coord wb16xNi(int l, int i) {
  Coord c = b16816i(l, i & 3);
  c.col = static_cast<uint8_t>(c.col + (i >> 2) * 8);
  return c;
}
Coord wa32x16i(int l, int i) {
  Coord c = a16816i(l, i & 7);
  c.row = static_cast<uint8_t>(c.row + (i >> 3) * 16);
  return c;
}

}  // namespace

FragmentLayout wmmaFragment(const MmaForm& f, MatrixRole r) {
  if (!accumulatorsFit(f) || (f.satfinite && !isByte(f.a))) return {};
  const bool A = r == MatrixRole::A, B = r == MatrixRole::B;
  if (isHalf(f.a)) {
    if (shape(f, 16, 16, 16))
      return A ? layout(16, 16, 8, a16816f) : B ? layout(16, 16, 8, wbHalf) : layout(16, 16, 8, wc16x16);
    if (shape(f, 32, 8, 16))
      return A ? layout(32, 16, 16, wa32x16f) : B ? layout(16, 8, 4, b16816f) : layout(32, 8, 8, wc32x8);
    if (shape(f, 8, 32, 16))
      return A ? layout(8, 16, 4, wa8x16f) : B ? layout(16, 32, 16, wbHalf) : layout(8, 32, 8, wc8x32);
  }
  if (f.a == MmaType::TF32 && shape(f, 16, 16, 8))
    return A ? layout(16, 8, 4, a1688tf32) : B ? layout(8, 16, 4, wb8x16tf32) : layout(16, 16, 8, wc16x16);
  if (isByte(f.a)) {
    if (shape(f, 16, 16, 16))
      return A ? layout(16, 16, 8, a16816i) : B ? layout(16, 16, 8, wb16xNi) : layout(16, 16, 8, wc16x16);
    if (shape(f, 32, 8, 16))
      return A ? layout(32, 16, 16, wa32x16i) : B ? layout(16, 8, 4, b16816i) : layout(32, 8, 8, wc32x8);
    if (shape(f, 8, 32, 16))
      return A ? layout(8, 16, 4, a8816i) : B ? layout(16, 32, 16, wb16xNi) : layout(8, 32, 8, wc8x32);
  }
  if (f.a == MmaType::F64 && shape(f, 8, 8, 4)) return mmaFragment(f, r);
  return {};
}

// ---- warpgroup MMA ------------------------------------------------------------------------------

MatrixDescriptor decodeMatrixDescriptor(uint64_t bits) {
  auto field = [&](unsigned lo) { return static_cast<uint32_t>((bits >> lo) & 0x3FFF) << 4; };
  MatrixDescriptor d;
  d.start = field(0);
  d.leading = field(16);
  d.stride = field(32);
  d.baseOffset = static_cast<uint8_t>((bits >> 49) & 7);
  d.swizzle = static_cast<Swizzle>(bits >> 62);
  return d;
}

unsigned swizzleBytes(Swizzle s) {
  switch (s) {
    case Swizzle::B128:
      return 128;
    case Swizzle::B64:
      return 64;
    case Swizzle::B32:
      return 32;
    default:
      return 16;
  }
}

uint32_t swizzleAddress(Swizzle s, uint32_t a) {
  const uint32_t chunks = swizzleBytes(s) / 16;  // 16-byte chunks in a row: 8, 4, 2 (none: 1)
  const uint32_t row = (a >> 7) & (chunks - 1);  // the row index bits the chunk index takes
  return a ^ (row << 4);
}

uint32_t descriptorElementAddress(const MatrixDescriptor& d, unsigned elemBytes, bool mnMajor, unsigned mn,
                                  unsigned k) {
  const unsigned W = swizzleBytes(d.swizzle);
  const bool swizzled = d.swizzle != Swizzle::None;
  uint32_t off;
  if (!mnMajor) {
    // Rows of mn, k contiguous in a row of W bytes (16 without a swizzle).
    const unsigned perRow = W / elemBytes;
    // A swizzled row holds all of k (k * elemBytes is 32 bytes for every form).
    off = (mn % 8) * W + (mn / 8) * d.stride + (k % perRow) * elemBytes;
    if (!swizzled) off += (k / perRow) * d.leading;
  } else {
    // Rows of k, mn contiguous in a row of W bytes.
    const unsigned perRow = W / elemBytes;
    off = (k % 8) * W + (mn % perRow) * elemBytes;
    off += swizzled ? (mn / perRow) * d.leading + (k / 8) * d.stride : (mn / perRow) * d.stride + (k / 8) * d.leading;
  }
  return swizzleAddress(d.swizzle, d.start + off);
}

}  // namespace ptxopt::emu
