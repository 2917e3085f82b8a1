// The emulator's tensor-core core (src/emu/Mma.h; docs/EMULATOR.md, "Tensor cores") tested
// directly: every fragment layout places each matrix element in exactly one lane and slot, and
// the multiply-accumulate rule rounds where the documentation says it does (f16 accumulators once
// at the end, tf32's ignored bits, canonical NaN, integer wrap and .satfinite).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "Mma.h"
#include "ptxopt/support/FloatBits.h"

using namespace ptxopt;
using namespace ptxopt::emu;

namespace {

MmaForm form(int m, int n, int k, MmaType a, MmaType c, int groups = 1) {
  MmaForm f;
  f.groups = static_cast<uint8_t>(groups);
  f.m = static_cast<uint8_t>(m), f.n = static_cast<uint8_t>(n), f.k = static_cast<uint8_t>(k);
  f.a = f.b = a;
  f.c = f.d = c;
  return f;
}

// Every (lane, i) names an element inside the matrix, and 32 lanes x perLane cover each element
// exactly once.
void expectBijective(const FragmentLayout& L, const std::string& what) {
  ASSERT_TRUE(L) << what;
  EXPECT_EQ(32u * L.perLane, unsigned(L.rows) * L.cols) << what;
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < L.perLane; ++i) {
      const MatrixCoord c = L.at(lane, i);
      EXPECT_LT(c.row, L.rows) << what << " lane " << lane << " element " << i;
      EXPECT_LT(c.col, L.cols) << what << " lane " << lane << " element " << i;
      EXPECT_TRUE(seen.insert({c.row, c.col}).second) << what << ": (" << int(c.row) << ", " << int(c.col) << ") twice";
    }
}

struct Case {
  int m, n, k;
  MmaType a, c;
  bool wmma;
  int groups = 1;
  bool aCol = false, bCol = true;
};

}  // namespace

TEST(Mma, EveryLayoutCoversItsMatrixOnce) {
  const Case cases[] = {
      {16, 8, 16, MmaType::F16, MmaType::F32, false},
      {16, 8, 8, MmaType::BF16, MmaType::F32, false},
      {16, 8, 8, MmaType::TF32, MmaType::F32, false},
      {16, 8, 16, MmaType::S8, MmaType::S32, false},
      {16, 8, 32, MmaType::U8, MmaType::S32, false},
      {8, 8, 16, MmaType::S8, MmaType::S32, false},
      {8, 8, 4, MmaType::F64, MmaType::F64, false},
      {16, 8, 4, MmaType::TF32, MmaType::F32, false},
      {16, 8, 4, MmaType::F64, MmaType::F64, false},
      {16, 8, 8, MmaType::F64, MmaType::F64, false},
      {8, 8, 4, MmaType::F16, MmaType::F32, false, 4, false, true},
      {8, 8, 4, MmaType::F16, MmaType::F16, false, 4, true, false},
      {16, 8, 16, MmaType::F64, MmaType::F64, false},
      {16, 16, 16, MmaType::F16, MmaType::F16, true},
      {32, 8, 16, MmaType::F16, MmaType::F32, true},
      {8, 32, 16, MmaType::BF16, MmaType::F32, true},
      {16, 16, 8, MmaType::TF32, MmaType::F32, true},
      {16, 16, 16, MmaType::S8, MmaType::S32, true},
      {32, 8, 16, MmaType::U8, MmaType::S32, true},
      {8, 32, 16, MmaType::S8, MmaType::S32, true},
      {8, 8, 4, MmaType::F64, MmaType::F64, true},
  };
  for (const Case& c : cases) {
    MmaForm f = form(c.m, c.n, c.k, c.a, c.c, c.groups);
    f.aColMajor = c.aCol, f.bColMajor = c.bCol;
    const std::string what = std::string(c.wmma ? "wmma " : "mma ") + "m" + std::to_string(c.m) + "n" +
                             std::to_string(c.n) + "k" + std::to_string(c.k) + " " + mmaTypeName(c.a);
    for (MatrixRole r : {MatrixRole::A, MatrixRole::B, MatrixRole::C}) {
      const FragmentLayout L = c.wmma ? wmmaFragment(f, r) : mmaFragment(f, r);
      expectBijective(L, what + " role " + std::to_string(int(r)));
      // Groups stack A's and C's rows and B's columns (MmaForm::groups).
      const int rows = r == MatrixRole::B ? c.k : c.m * c.groups;
      const int cols = r == MatrixRole::A ? c.k : r == MatrixRole::B ? c.n * c.groups : c.n;
      EXPECT_EQ(L.rows, rows) << what;
      EXPECT_EQ(L.cols, cols) << what;
    }
  }
  FragmentLayout ld{8, 8, 2, matrix8x8Element};
  expectBijective(ld, "ldmatrix 8x8");
}

TEST(Mma, FormsNotEmulatedHaveNoLayout) {
  EXPECT_FALSE(mmaFragment(form(8, 8, 4, MmaType::F16, MmaType::F32), MatrixRole::A));  // sm_70's form has 4 groups
  MmaForm mixed = form(8, 8, 4, MmaType::F16, MmaType::F32, 4);
  mixed.c = MmaType::F16;  // an .f32 D from an .f16 C: two layouts, not run
  EXPECT_FALSE(mmaFragment(mixed, MatrixRole::A));
  EXPECT_FALSE(
      mmaFragment(form(16, 8, 16, MmaType::BF16, MmaType::F16), MatrixRole::A));  // bf16 needs f32 accumulators
  MmaForm sat = form(16, 8, 16, MmaType::F16, MmaType::F32);
  sat.satfinite = true;
  EXPECT_FALSE(mmaFragment(sat, MatrixRole::C));
}

TEST(Mma, HalfAccumulatorIsRoundedOnceAtTheEnd) {
  // 2048 + 1 + 1 + 1: f32 holds 2051, which rounds (a tie) to the even f16 2052. Rounding to
  // f16 after every step would keep 2048 (each 2049 a tie to the even 2048).
  MmaForm f = form(1, 1, 3, MmaType::F16, MmaType::F16);
  const uint64_t one = doubleToHalf(1.0);
  const uint64_t A[3] = {one, one, one}, B[3] = {one, one, one}, C[1] = {doubleToHalf(2048.0)};
  uint64_t D[1] = {0};
  multiplyAccumulate(f, A, B, C, D);
  EXPECT_EQ(halfToDouble(static_cast<uint16_t>(D[0])), 2052.0);
}

TEST(Mma, FloatAccumulatesInKOrderWithOneRoundingPerStep) {
  // 2^24 + 1 - 1 in k order: (2^24 + 1) rounds to 2^24 (a tie, even), then - 1 gives 2^24 - 1.
  MmaForm f = form(1, 1, 2, MmaType::F16, MmaType::F32);
  const uint64_t A[2] = {doubleToHalf(1.0), doubleToHalf(-1.0)}, B[2] = {doubleToHalf(1.0), doubleToHalf(1.0)};
  const uint64_t C[1] = {floatBits(16777216.0f)};
  uint64_t D[1] = {0};
  multiplyAccumulate(f, A, B, C, D);
  EXPECT_EQ(bitsFloat(static_cast<uint32_t>(D[0])), 16777215.0f);
}

TEST(Mma, Tf32IgnoresTheLow13BitsAndNaNIsCanonical) {
  MmaForm f = form(1, 1, 1, MmaType::TF32, MmaType::F32);
  const uint64_t A[1] = {floatBits(1.0f) | 0x1FFFu}, B[1] = {floatBits(3.0f)}, C[1] = {floatBits(0.0f)};
  uint64_t D[1] = {0};
  multiplyAccumulate(f, A, B, C, D);
  EXPECT_EQ(bitsFloat(static_cast<uint32_t>(D[0])), 3.0f);
  const uint64_t Cnan[1] = {0x7FC01234u};
  multiplyAccumulate(f, A, B, Cnan, D);
  EXPECT_EQ(D[0], 0x7FFFFFFFu);
}

TEST(Mma, IntegersWrapOrSaturate) {
  MmaForm f = form(1, 1, 2, MmaType::S8, MmaType::S32);
  f.b = MmaType::U8;
  const uint64_t A[2] = {0x80, 0x7F}, B[2] = {0xFF, 0xFF};  // -128 * 255 + 127 * 255 = -255
  const uint64_t C[1] = {static_cast<uint32_t>(INT32_MIN + 100)};
  uint64_t D[1] = {0};
  multiplyAccumulate(f, A, B, C, D);
  EXPECT_EQ(static_cast<int32_t>(D[0]), INT32_MAX - 154);  // INT32_MIN + 100 - 255, wrapped
  f.satfinite = true;
  multiplyAccumulate(f, A, B, C, D);
  EXPECT_EQ(static_cast<int32_t>(D[0]), INT32_MIN);
}

TEST(Mma, GroupsMultiplyTheirOwnRowsAndColumns) {
  // Two groups of 1 x 1 x 2: D0 = A0 . B0 + C0 and D1 = A1 . B1 + C1, never A0 with B1.
  MmaForm f = form(1, 1, 2, MmaType::S8, MmaType::S32, 2);
  const uint64_t A[4] = {1, 2, 3, 4};  // group 0's row: 1 2; group 1's: 3 4
  const uint64_t B[4] = {5, 6, 7, 8};  // k x (groups n): rows 5 6 and 7 8; group 0's column: 5 7
  const uint64_t C[2] = {100, 200};
  uint64_t D[2] = {0, 0};
  multiplyAccumulate(f, A, B, C, D);
  EXPECT_EQ(D[0], 100u + 1 * 5 + 2 * 7);
  EXPECT_EQ(D[1], 200u + 3 * 6 + 4 * 8);
}

// ---- wgmma's shared-memory matrix descriptors ---------------------------------------------------

// The descriptors Triton's sm_90a matmul ORs onto (shared address >> 4): A 64B-swizzled with a
// 512-byte stride, B 128B-swizzled with a 1024-byte stride; both with a 4096-byte leading offset.
TEST(WgmmaDescriptor, DecodesTheFields) {
  const MatrixDescriptor a = decodeMatrixDescriptor(0x8000002001000000ull | (0x1230 >> 4));
  EXPECT_EQ(a.start, 0x1230u);
  EXPECT_EQ(a.leading, 4096u);
  EXPECT_EQ(a.stride, 512u);
  EXPECT_EQ(a.baseOffset, 0);
  EXPECT_EQ(a.swizzle, Swizzle::B64);
  const MatrixDescriptor b = decodeMatrixDescriptor(0x4000004001000000ull);
  EXPECT_EQ(b.stride, 1024u);
  EXPECT_EQ(b.swizzle, Swizzle::B128);
  EXPECT_EQ(decodeMatrixDescriptor(0xC000000000000000ull).swizzle, Swizzle::B32);
  EXPECT_EQ(decodeMatrixDescriptor(0x0006000000000000ull).baseOffset, 3);
  // Bits outside the fields are ignored: 14 bits each.
  EXPECT_EQ(decodeMatrixDescriptor(0x0000000000007FFFull).start, 0x3FFFu << 4);
}

// The swizzle XORs the 16-byte chunk index with address bits 7 and up: 3 bits for 128B, 2 for
// 64B, 1 for 32B; nothing without one.
TEST(WgmmaDescriptor, SwizzlesAddresses) {
  EXPECT_EQ(swizzleAddress(Swizzle::None, 0x3F0u), 0x3F0u);
  EXPECT_EQ(swizzleAddress(Swizzle::B128, 0x000u), 0x000u);
  EXPECT_EQ(swizzleAddress(Swizzle::B128, 0x080u), 0x090u);  // row 1: chunk 0 -> 1
  EXPECT_EQ(swizzleAddress(Swizzle::B128, 0x3F2u), 0x382u);  // row 7: chunk 7 -> 0, byte 2 kept
  EXPECT_EQ(swizzleAddress(Swizzle::B128, 0x400u), 0x400u);  // the pattern repeats every 1024 bytes
  EXPECT_EQ(swizzleAddress(Swizzle::B64, 0x180u), 0x1B0u);   // row 3: chunk 0 -> 3
  EXPECT_EQ(swizzleAddress(Swizzle::B64, 0x200u), 0x200u);   // repeats every 512 bytes
  EXPECT_EQ(swizzleAddress(Swizzle::B32, 0x080u), 0x090u);
  EXPECT_EQ(swizzleAddress(Swizzle::B32, 0x100u), 0x100u);   // repeats every 256 bytes
  // An involution: swizzling twice gives the address back.
  for (Swizzle s : {Swizzle::B128, Swizzle::B64, Swizzle::B32})
    for (uint32_t a = 0; a < 4096; a += 2) EXPECT_EQ(swizzleAddress(s, swizzleAddress(s, a)), a);
}

// Element addresses in the canonical layouts, f16 elements.
TEST(WgmmaDescriptor, ElementAddresses) {
  MatrixDescriptor d;
  d.start = 0x400, d.leading = 128, d.stride = 256;
  // K-major without a swizzle: 8 x 16-byte core matrices; k 8 and on `leading` further, rows 8
  // and on `stride` further.
  EXPECT_EQ(descriptorElementAddress(d, 2, false, 0, 0), 0x400u);
  EXPECT_EQ(descriptorElementAddress(d, 2, false, 3, 5), 0x400u + 3 * 16 + 10);
  EXPECT_EQ(descriptorElementAddress(d, 2, false, 9, 13), 0x400u + 256 + 16 + 128 + 10);
  // MN-major without a swizzle: k rows of 16 bytes; mn 8 and on `stride` further, k 8 and on
  // `leading` further.
  EXPECT_EQ(descriptorElementAddress(d, 2, true, 9, 13), 0x400u + 256 + 2 + 128 + 5 * 16);
  // K-major, 128B: rows 128 bytes apart, k contiguous, then swizzled.
  d.swizzle = Swizzle::B128, d.stride = 1024, d.start = 0;
  EXPECT_EQ(descriptorElementAddress(d, 2, false, 1, 0), 0x90u);
  EXPECT_EQ(descriptorElementAddress(d, 2, false, 9, 9), swizzleAddress(Swizzle::B128, 1024 + 128 + 18));
  // A start 32 bytes into the row (the second k16 step of a 64-element row) swizzles with it.
  d.start = 32;
  EXPECT_EQ(descriptorElementAddress(d, 2, false, 1, 0), (128u + 32) ^ 0x10u);
  // MN-major, 32B: mn contiguous for 16 elements, then `leading` further; k rows 32 bytes apart.
  d.start = 0, d.swizzle = Swizzle::B32, d.leading = 256, d.stride = 512;
  EXPECT_EQ(descriptorElementAddress(d, 2, true, 17, 9), swizzleAddress(Swizzle::B32, 256 + 2 + 32 + 512));
}
