// switch-opt's helpers tested directly (issue #32): the compare-tree node arithmetic
// (`valueOf`, `holds`), the depth of its balanced search tree (`bstDepth`) and its choice of a
// lowering for hand-made switches (`choose`). These run without CUDA; the lit tests reach the
// same code only through whole passes.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "TestUtil.h"
#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"

// The private headers of src/passes/ (tests/CMakeLists.txt puts that directory on the path).
#include "SwitchChoice.h"
#include "SwitchCosts.h"
#include "SwitchTree.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

// A hand-made compare node, as SwitchTreeReader::compareNodeAt fills one: the constant's bits
// `raw` read at `bits` in the node's signedness; unsigned for lo/ls/hi/hs.
switchopt::SwitchNode node(CmpOp cmp, uint32_t raw, unsigned bits, bool isSigned, uint32_t offset = 0) {
  switchopt::SwitchNode t;
  t.cmp = cmp;
  t.bits = bits;
  t.isSigned = isSigned;
  t.raw = raw;
  t.c = switchopt::valueOf(raw, bits, isSigned);
  t.offset = offset;
  return t;
}

// The comparison a setp of this width and signedness makes of selector value `v` plus
// `offset` against the constant bits `raw`, computed here from the integer types themselves.
bool referenceCompare(CmpOp cmp, unsigned bits, bool isSigned, int64_t v, uint32_t offset, uint32_t raw) {
  uint32_t x = uint32_t(v) + offset;
  int64_t a, b;
  if (bits == 16) {
    a = isSigned ? int64_t(static_cast<int16_t>(static_cast<uint16_t>(x))) : int64_t(static_cast<uint16_t>(x));
    b = isSigned ? int64_t(static_cast<int16_t>(static_cast<uint16_t>(raw))) : int64_t(static_cast<uint16_t>(raw));
  } else {
    a = isSigned ? int64_t(static_cast<int32_t>(x)) : int64_t(x);
    b = isSigned ? int64_t(static_cast<int32_t>(raw)) : int64_t(raw);
  }
  switch (cmp) {
    case CmpOp::Eq:
      return a == b;
    case CmpOp::Ne:
      return a != b;
    case CmpOp::Lt:
    case CmpOp::Lo:
      return a < b;
    case CmpOp::Le:
    case CmpOp::Ls:
      return a <= b;
    case CmpOp::Gt:
    case CmpOp::Hi:
      return a > b;
    case CmpOp::Ge:
    case CmpOp::Hs:
      return a >= b;
    default:
      ADD_FAILURE() << "not an integer comparison";
      return false;
  }
}

// Selector values at the edges of every width: 0, +-1, the minima and maxima of 8, 16, 32 and
// 64 bits, signed and unsigned, and one past each.
std::vector<int64_t> edgeValues() {
  std::vector<int64_t> v = {0, 1, -1, 2, -2};
  for (int64_t e : {int64_t(INT8_MIN), int64_t(INT8_MAX), int64_t(UINT8_MAX), int64_t(INT16_MIN), int64_t(INT16_MAX),
                    int64_t(UINT16_MAX), int64_t(INT32_MIN), int64_t(INT32_MAX), int64_t(UINT32_MAX)}) {
    v.push_back(e);
    v.push_back(e + 1);
    v.push_back(e - 1);
  }
  v.push_back(std::numeric_limits<int64_t>::min());
  v.push_back(std::numeric_limits<int64_t>::max());
  v.push_back(std::numeric_limits<int64_t>::min() + 1);
  v.push_back(std::numeric_limits<int64_t>::max() - 1);
  v.push_back(int64_t(uint64_t(1) << 32));        // low 32 bits 0
  v.push_back(int64_t((uint64_t(1) << 32) | 5));  // low 32 bits 5
  return v;
}

const std::vector<CmpOp> kSignedOrBitCmps = {CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge};
const std::vector<CmpOp> kUnsignedOnlyCmps = {CmpOp::Lo, CmpOp::Ls, CmpOp::Hi, CmpOp::Hs};

}  // namespace

// ---- switchopt::valueOf --------------------------------------------------------------------

TEST(PassHelpersValueOf, SixteenBitsSignExtendOrZeroExtend) {
  using switchopt::valueOf;
  EXPECT_EQ(valueOf(0x0000, 16, true), 0);
  EXPECT_EQ(valueOf(0x7fff, 16, true), INT16_MAX);
  EXPECT_EQ(valueOf(0x7fff, 16, false), INT16_MAX);
  EXPECT_EQ(valueOf(0x8000, 16, true), INT16_MIN);
  EXPECT_EQ(valueOf(0x8000, 16, false), 32768);
  EXPECT_EQ(valueOf(0xffff, 16, true), -1);
  EXPECT_EQ(valueOf(0xffff, 16, false), UINT16_MAX);
  // 8-bit edges held in 16 bits are plain 16-bit values (no sign bit at bit 7).
  EXPECT_EQ(valueOf(0x007f, 16, true), INT8_MAX);
  EXPECT_EQ(valueOf(0x0080, 16, true), 128);
  EXPECT_EQ(valueOf(0x00ff, 16, true), UINT8_MAX);
  EXPECT_EQ(valueOf(0xff80, 16, true), INT8_MIN);
  // Bits above the 16 are ignored.
  EXPECT_EQ(valueOf(0xabcd8000u, 16, true), INT16_MIN);
  EXPECT_EQ(valueOf(0xabcd8000u, 16, false), 32768);
  EXPECT_EQ(valueOf(0x00010000u, 16, false), 0);
}

TEST(PassHelpersValueOf, ThirtyTwoBitsSignExtendOrZeroExtend) {
  using switchopt::valueOf;
  EXPECT_EQ(valueOf(0, 32, true), 0);
  EXPECT_EQ(valueOf(0x7fffffffu, 32, true), INT32_MAX);
  EXPECT_EQ(valueOf(0x7fffffffu, 32, false), INT32_MAX);
  EXPECT_EQ(valueOf(0x80000000u, 32, true), INT32_MIN);
  EXPECT_EQ(valueOf(0x80000000u, 32, false), int64_t(0x80000000u));
  EXPECT_EQ(valueOf(0xffffffffu, 32, true), -1);
  EXPECT_EQ(valueOf(0xffffffffu, 32, false), int64_t(UINT32_MAX));
  // 16-bit edges held in 32 bits are plain 32-bit values.
  EXPECT_EQ(valueOf(0x8000, 32, true), 32768);
  EXPECT_EQ(valueOf(0xffff, 32, true), UINT16_MAX);
  EXPECT_EQ(valueOf(0xffff8000u, 32, true), INT16_MIN);
  EXPECT_EQ(valueOf(0xffffff80u, 32, true), INT8_MIN);
  EXPECT_EQ(valueOf(0xffffff80u, 32, false), int64_t(0xffffff80u));
}

// ---- switchopt::holds ----------------------------------------------------------------------

TEST(PassHelpersHolds, EveryIntegerComparisonAtEveryEdgeMatchesTheIntegerTypes) {
  // Every comparison a compare node can have (eq/ne/lt/le/gt/ge signed or unsigned, lo/ls/hi/hs
  // unsigned), 16 and 32 bits, with and without an offset, against constants at the edges.
  const std::vector<uint32_t> consts16 = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff};
  const std::vector<uint32_t> consts32 = {0, 1, 0x7f, 0x80, 0xffff, 0x8000, 0x7fffffffu, 0x80000000u, 0xffffffffu};
  const std::vector<uint32_t> offsets = {0, 3, uint32_t(-3), 0x80000000u};
  size_t checked = 0;
  for (unsigned bits : {16u, 32u})
    for (uint32_t raw : bits == 16 ? consts16 : consts32)
      for (uint32_t offset : offsets)
        for (int64_t v : edgeValues()) {
          for (bool isSigned : {true, false})
            for (CmpOp cmp : kSignedOrBitCmps) {
              switchopt::SwitchNode t = node(cmp, raw, bits, isSigned, offset);
              ASSERT_EQ(switchopt::holds(t, v), referenceCompare(cmp, bits, isSigned, v, offset, raw))
                  << "cmp " << int(cmp) << " bits " << bits << (isSigned ? " signed" : " unsigned") << " raw " << raw
                  << " offset " << offset << " v " << v;
              ++checked;
            }
          for (CmpOp cmp : kUnsignedOnlyCmps) {
            switchopt::SwitchNode t = node(cmp, raw, bits, false, offset);
            ASSERT_EQ(switchopt::holds(t, v), referenceCompare(cmp, bits, false, v, offset, raw))
                << "cmp " << int(cmp) << " bits " << bits << " raw " << raw << " offset " << offset << " v " << v;
            ++checked;
          }
        }
  EXPECT_GT(checked, 10000u);
}

TEST(PassHelpersHolds, SignednessDecidesAtTheSignBoundary) {
  // -1 is below 0 signed and the largest value unsigned.
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Lt, 0, 32, true), -1));
  EXPECT_FALSE(switchopt::holds(node(CmpOp::Lt, 0, 32, false), -1));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Hi, 0x7fffffffu, 32, false), -1));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Hs, 0xffffffffu, 32, false), -1));
  EXPECT_FALSE(switchopt::holds(node(CmpOp::Lo, 0xffffffffu, 32, false), -1));
  // INT32_MIN against INT32_MAX.
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Lt, 0x7fffffffu, 32, true), INT32_MIN));
  EXPECT_FALSE(switchopt::holds(node(CmpOp::Lo, 0x7fffffffu, 32, false), INT32_MIN));
  // 16 bits: 0x8000 is -32768 signed, 32768 unsigned; the selector's upper bits do not count.
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Le, 0x8000, 16, true), 0x8000));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 0x8000, 16, true), 0x8000));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 0x8000, 16, true), INT16_MIN));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 0xffff, 16, true), 0x1ffff));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Gt, 0x7fff, 16, false), 0x8000));
  EXPECT_FALSE(switchopt::holds(node(CmpOp::Gt, 0x7fff, 16, true), 0x8000));
  // A selector of 64-bit extremes is read by its low 32 bits.
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 0, 32, true), std::numeric_limits<int64_t>::min()));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 0xffffffffu, 32, true), std::numeric_limits<int64_t>::max()));
}

TEST(PassHelpersHolds, OffsetWrapsInTheNodesWidth) {
  // `add.s32 %t, %sel, -3; setp.lt.u32 %p, %t, 4`: the range check for selector values 3..6.
  switchopt::SwitchNode range = node(CmpOp::Lo, 4, 32, false, uint32_t(-3));
  std::vector<int64_t> in;
  for (int64_t v = -5; v <= 12; ++v)
    if (switchopt::holds(range, v)) in.push_back(v);
  EXPECT_EQ(in, (std::vector<int64_t>{3, 4, 5, 6}));
  // 16 bits: 0xfffe + 3 wraps to 1.
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 1, 16, false, 3), 0xfffe));
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Eq, 1, 16, true, 3), -2));
  // Signed: INT32_MAX + 1 wraps to INT32_MIN.
  EXPECT_TRUE(switchopt::holds(node(CmpOp::Lt, 0, 32, true, 1), INT32_MAX));
}

TEST(PassHelpersHolds, BitTests) {
  // LLVM's bit test: `shl.b32 %b, 1, %sel; and.b32 %t, %b, 0x29; setp.ne.s32 %p, %t, 0`: holds
  // for selector values 0, 3 and 5 (bits of 0b101001).
  switchopt::SwitchNode ne = node(CmpOp::Ne, 0, 32, true);
  ne.bitTest = true;
  ne.bitMask = 0x29;
  switchopt::SwitchNode eq = ne;
  eq.cmp = CmpOp::Eq;
  for (int64_t v = -2; v < 40; ++v) {
    bool set = v >= 0 && v < 32 && ((0x29u >> v) & 1u);
    EXPECT_EQ(switchopt::holds(ne, v), set) << v;
    EXPECT_EQ(switchopt::holds(eq, v), !set) << v;
  }
  // A shift by 32 or more leaves 0, whatever the mask: bit 31 only for 31.
  switchopt::SwitchNode top = ne;
  top.bitMask = 0x80000000u;
  EXPECT_TRUE(switchopt::holds(top, 31));
  EXPECT_FALSE(switchopt::holds(top, 32));
  EXPECT_FALSE(switchopt::holds(top, 63));
  EXPECT_FALSE(switchopt::holds(top, -1));  // 0xffffffff
  // With an offset (the selector plus a constant computed before the shl): sel - 10.
  switchopt::SwitchNode off = ne;
  off.offset = uint32_t(-10);
  EXPECT_TRUE(switchopt::holds(off, 10));
  EXPECT_FALSE(switchopt::holds(off, 11));
  EXPECT_TRUE(switchopt::holds(off, 13));
  EXPECT_TRUE(switchopt::holds(off, 15));
  EXPECT_FALSE(switchopt::holds(off, 9));  // wraps to 0xffffffff: shift too big
}

TEST(PassHelpersHolds, FloatComparisonsNeverHold) {
  // Nodes never carry them (the reader refuses), and holds answers false for each.
  for (CmpOp c : {CmpOp::Equ, CmpOp::Neu, CmpOp::Ltu, CmpOp::Leu, CmpOp::Gtu, CmpOp::Geu, CmpOp::Num})
    for (int64_t v : {int64_t(-1), int64_t(0), int64_t(1)}) EXPECT_FALSE(switchopt::holds(node(c, 0, 32, true), v));
}

TEST(PassHelpersHolds, NodesTheReaderMakesEvaluateLikeTheirSetp) {
  // The root of each function is read by SwitchTreeReader; `holds` on the node it makes must
  // agree with the setp's own arithmetic (computed here with the PTX integer types).
  struct Case {
    const char* setp;
    CmpOp cmp;
    unsigned bits;
    bool isSigned;
    uint32_t raw;
  };
  const std::vector<Case> cases = {
      {"setp.lt.s32 %p1, %r1, -5;", CmpOp::Lt, 32, true, uint32_t(-5)},
      {"setp.lt.u32 %p1, %r1, -5;", CmpOp::Lt, 32, false, uint32_t(-5)},
      {"setp.hi.u32 %p1, %r1, 2147483647;", CmpOp::Hi, 32, false, 0x7fffffffu},
      {"setp.eq.b32 %p1, %r1, -1;", CmpOp::Eq, 32, false, 0xffffffffu},
      {"setp.ge.s16 %p1, %h1, -32768;", CmpOp::Ge, 16, true, 0x8000},
      {"setp.le.u16 %p1, %h1, 65535;", CmpOp::Le, 16, false, 0xffff},
      {"setp.gt.s16 %p1, %h1, 127;", CmpOp::Gt, 16, true, 0x7f},
  };
  for (const Case& c : cases) {
    std::string body =
        ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b16 %h<2>;\nmov.u32 %r1, %tid.x;\ncvt.u16.u32 %h1, %r1;\n" +
        std::string(c.setp) + "\n@%p1 bra $Lcase;\n$Ldefault:\nret;\n$Lcase:\nret;";
    auto m = parseOk(kernel(body));
    ASSERT_TRUE(m) << c.setp;
    Function& f = onlyFunction(*m);
    BranchTargetTables tables = collectBranchTargetTables(f);
    auto pinned = pinnedLabelNames(f, tables);
    switchopt::SwitchTreeReader reader(f, tables, pinned);
    auto t = reader.nodeAt(f.entry(), /*root=*/true);
    ASSERT_TRUE(t) << c.setp;
    EXPECT_EQ(t->cmp, c.cmp) << c.setp;
    EXPECT_EQ(t->bits, c.bits) << c.setp;
    EXPECT_EQ(t->isSigned, c.isSigned) << c.setp;
    EXPECT_EQ(t->raw, c.raw) << c.setp;
    EXPECT_EQ(t->ifTrue, blockNamed(f, "$Lcase")) << c.setp;
    EXPECT_EQ(t->ifFalse, blockNamed(f, "$Ldefault")) << c.setp;
    for (int64_t v : edgeValues())
      EXPECT_EQ(switchopt::holds(*t, v), referenceCompare(c.cmp, c.bits, c.isSigned, v, 0, c.raw))
          << c.setp << " v " << v;
  }
}

// ---- switchopt::bstDepth -------------------------------------------------------------------

namespace {

// Independent of the recursion: the tree halves its runs (n/2 left, the rest right) until a
// node holds at most kLeafRuns, and a leaf tests each of its runs in turn. After k halvings the
// largest piece has ceil(n / 2^k) runs, and a path through smaller pieces is never longer, so
// the longest path is k splits plus that leaf, for the first k that makes it a leaf.
unsigned referenceDepth(uint64_t n) {
  unsigned k = 0;
  uint64_t piece = n;
  while (piece > switchopt::kLeafRuns) {
    ++k;
    piece = (n + (uint64_t(1) << k) - 1) >> k;
  }
  return k + unsigned(piece);
}

}  // namespace

TEST(PassHelpersBstDepth, SmallRunCounts) {
  ASSERT_EQ(switchopt::kLeafRuns, 3u);
  // n = 0..20 by hand: 0 1 2 3 | 3 4 4 4 4 | 5 5 5 5 5 5 5 5 | 6 6 6 6 (n = 17..20).
  const unsigned expected[21] = {0, 1, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6};
  for (size_t n = 0; n <= 20; ++n) {
    EXPECT_EQ(switchopt::bstDepth(n), expected[n]) << "n = " << n;
    EXPECT_EQ(switchopt::bstDepth(n), referenceDepth(n)) << "n = " << n;
  }
}

TEST(PassHelpersBstDepth, MatchesTheClosedFormUpToAThousand) {
  for (size_t n = 0; n <= 1000; ++n) ASSERT_EQ(switchopt::bstDepth(n), referenceDepth(n)) << "n = " << n;
}

TEST(PassHelpersBstDepth, LargeRunCounts) {
  for (size_t n : {size_t(1024), size_t(1025), size_t(3) << 10, (size_t(3) << 10) + 1, size_t(65535), size_t(65536),
                   size_t(65537), size_t(1) << 20, (size_t(1) << 20) + 1, size_t(1000003)})
    EXPECT_EQ(switchopt::bstDepth(n), referenceDepth(n)) << "n = " << n;
  // Exact figures: 3 * 2^k runs split k times into leaves of 3; one more run needs one more
  // split but leaves of at most 2.
  EXPECT_EQ(switchopt::bstDepth(size_t(3) << 10), 13u);
  EXPECT_EQ(switchopt::bstDepth((size_t(3) << 10) + 1), 13u);
  EXPECT_EQ(switchopt::bstDepth(size_t(1) << 20), 21u);        // 19 splits, leaves of 2
  EXPECT_EQ(switchopt::bstDepth((size_t(1) << 20) + 1), 22u);  // 19 splits, leaves of up to 3
  // Monotone in n.
  for (size_t n = 1; n <= 5000; ++n) ASSERT_LE(switchopt::bstDepth(n - 1), switchopt::bstDepth(n)) << "n = " << n;
}

// ---- switchopt::choose ----------------------------------------------------------------------

namespace {

using switchopt::Lowering;

// A dense uniform switch over 0..7 that the cost model allows a table: no plans, no profile.
switchopt::SwitchShape denseShape() {
  switchopt::SwitchShape s;
  s.where = "compare tree at line 9 (8 tests, 8 constants): 8 cases over 8 values";
  for (int64_t v = 0; v < 8; ++v) s.runs.push_back({v, v, nullptr});
  s.ncases = 8;
  s.last = 7;
  s.span = 8;
  s.density = 1;
  s.tableFits = true;
  s.longestPath = 8;
  s.balancedDepth = switchopt::bstDepth(8);
  s.branchingCost = 9 + 8;
  return s;
}

switchopt::SwitchPolicy autoPolicy() { return {}; }

switchopt::SwitchPolicy forced(Lowering l) {
  switchopt::SwitchPolicy p;
  p.forced = l;
  return p;
}

switchopt::PredicatedSwitch predicatedOf(int64_t size) {
  switchopt::PredicatedSwitch ps;
  ps.size = size;
  return ps;
}

}  // namespace

TEST(PassHelpersChoose, TheLoweringKnob) {
  EXPECT_EQ(switchopt::parseLowering("auto"), std::nullopt);
  EXPECT_EQ(switchopt::parseLowering("table"), Lowering::Table);
  EXPECT_EQ(switchopt::parseLowering("bst"), Lowering::BalancedTree);
  EXPECT_EQ(switchopt::parseLowering("cascade"), Lowering::Cascade);
  EXPECT_EQ(switchopt::parseLowering("predicate"), Lowering::Predicate);
}

TEST(PassHelpersChoose, AutoTakesAValueTableThenAJumpTable) {
  switchopt::SwitchShape s = denseShape();
  s.valueTable = switchopt::ValueTable{};
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::ValueTable);
  EXPECT_EQ(c.where, s.where);
  EXPECT_TRUE(c.notes.empty());
  // Without a plan: a jump table, after saying why there is no value table.
  s.valueTable.reset();
  s.valueTableWhy = "a case computes";
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Table);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].first, "no-value-table");
  EXPECT_EQ(c.notes[0].second, s.where + ": a case computes");
  // value-table=false: no note.
  switchopt::SwitchPolicy p = autoPolicy();
  p.valueTables = false;
  EXPECT_TRUE(switchopt::choose(s, p).notes.empty());
}

TEST(PassHelpersChoose, WhatNoLoweringTakes) {
  switchopt::SwitchShape s = denseShape();
  s.valueTable = switchopt::ValueTable{};
  s.blocked = "live";
  s.blockedWhy = "the predicate of the test at line 9 is read later";
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "live");
  EXPECT_EQ(c.why, s.blockedWhy);
  // A divergent switch the cost model refuses, with neither predication nor a profile: the
  // cost is the reason, before what blocks it.
  s.divergent = true;
  s.tableWhy = "2 cases against min-cases 4";
  switchopt::SwitchPolicy p = autoPolicy();
  p.predicateLimit = 0;
  c = switchopt::choose(s, p);
  EXPECT_EQ(c.refused, "cost");
  EXPECT_EQ(c.why, s.tableWhy);
  // A forced table over max-span.
  s = denseShape();
  s.tableFits = false;
  s.tableWhy = "a span of 300 against max-span 256";
  c = switchopt::choose(s, forced(Lowering::Table));
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "cost");
}

TEST(PassHelpersChoose, AUniformSwitchTheCostModelRefusesBecomesABalancedTreeWhenThatSavesBstGain) {
  switchopt::SwitchShape s = denseShape();
  s.tableWhy = "density 0.10 against min-density 0.40";
  s.longestPath = 8;  // a cascade; balanced: 4
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::BalancedTree);
  EXPECT_EQ(c.where, s.where + ", longest path 8 tests");
  s.longestPath = 5;  // saves 1 < bst-gain 2
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "cost");
  EXPECT_EQ(c.why, s.tableWhy + "; a balanced tree would test 4 times on its longest path, the tree 5");
  // Forced trees take any switch.
  EXPECT_EQ(switchopt::choose(s, forced(Lowering::Cascade)).lowering, Lowering::Cascade);
  EXPECT_EQ(switchopt::choose(s, forced(Lowering::BalancedTree)).lowering, Lowering::BalancedTree);
}

TEST(PassHelpersChoose, JumpTablesAlreadyAndBitTestsStayInAuto) {
  switchopt::SwitchShape s = denseShape();
  s.brxRoot = true;
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "table");
  s.brxRoot = false;
  s.bitTests = true;
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.refused, "bit-tests");
  EXPECT_EQ(switchopt::choose(s, forced(Lowering::Table)).lowering, Lowering::Table);
  // A range check and its brx.idx: even a forced table keeps them.
  s.bitTests = false;
  s.rangeCheckBrx = true;
  c = switchopt::choose(s, forced(Lowering::Table));
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.why, "a range check and a brx.idx: a jump table already");
}

TEST(PassHelpersChoose, PredicationOnADivergentDenseSwitch) {
  switchopt::SwitchShape s = denseShape();
  s.divergent = true;
  s.predicated = predicatedOf(8);
  s.predicateCost = 9;
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Predicate);
  EXPECT_EQ(c.why, "divergent selector");
  EXPECT_EQ(c.where, s.where + ", 9 instructions of predicates against 17 of branching");
  // Predicates that cost as much as the branching: a jump table, with a remark on the way.
  s.predicateCost = 17;
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Table);
  ASSERT_GE(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].first, "no-predicate");
  EXPECT_EQ(c.notes[0].second, s.where + ": 17 instructions of predicates against 17 of branching (a table)");
  // Bodies over predicate-limit; a selector some path sets to a constant.
  s.predicateCost = 9;
  s.predicated = predicatedOf(33);
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.notes[0].second, s.where + ": 33 instructions in the bodies against predicate-limit 32");
  s.predicated = predicatedOf(8);
  s.selectorConstantLine = 42;
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Table);
  EXPECT_EQ(c.notes[0].second, s.where + ": the selector is a constant on the path through line 42; ptxas threads such paths to their case");
  // A sparse one is kept: no predication without a profile, no table.
  s.selectorConstantLine.reset();
  s.tableWhy = "density 0.20 against min-density 0.40";
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "cost");
  EXPECT_EQ(c.notes[0].second, s.where + ": " + s.tableWhy + " (a sparse switch is predicated only with a profile)");
  // Forced: any plan, on any selector; no plan, kept.
  s.divergent = false;
  s.predicated = predicatedOf(100);
  c = switchopt::choose(s, forced(Lowering::Predicate));
  EXPECT_EQ(c.lowering, Lowering::Predicate);
  EXPECT_EQ(c.why, "uniform selector");
  s.predicated.reset();
  s.predicatedWhy = "no case does anything";
  c = switchopt::choose(s, forced(Lowering::Predicate));
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "predicate");
  EXPECT_EQ(c.why, "no case does anything");
}

TEST(PassHelpersChoose, AProfileTakesTheFewestExpectedWarpInstructions) {
  switchopt::SwitchShape s = denseShape();
  s.profiled = true;
  s.profile = switchopt::ProfileCosts{};
  s.profile->tree = 300;
  s.profile->table = 200;
  s.profile->bst = 250;
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Table);
  EXPECT_TRUE(c.byProfile);
  EXPECT_EQ(c.where, s.where + " (profile, expected warp instructions: table 200, bst 250, keep 300)");
  // The tree cheapest: kept.
  s.profile->tree = 100;
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Keep);
  EXPECT_EQ(c.refused, "profile");
  EXPECT_EQ(c.why, "the tree costs least");
  // A tie goes to the earlier: the value table before the jump table, the jump table before
  // the predicated switch.
  s.profile->tree = 300;
  s.valueTable = switchopt::ValueTable{};
  s.profile->valueTable = 200;
  EXPECT_EQ(switchopt::choose(s, autoPolicy()).lowering, Lowering::ValueTable);
  s.valueTable.reset();
  s.predicated = predicatedOf(4);
  s.profile->predicate = 200;
  EXPECT_EQ(switchopt::choose(s, autoPolicy()).lowering, Lowering::Table);
  s.profile->predicate = 199;
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::Predicate);
  EXPECT_EQ(c.why, "the profile");
  // A divergent selector gets no balanced tree.
  s.predicated.reset();
  s.divergent = true;
  s.profile->bst = 1;
  EXPECT_EQ(switchopt::choose(s, autoPolicy()).lowering, Lowering::Table);
  s.divergent = false;
  EXPECT_EQ(switchopt::choose(s, autoPolicy()).lowering, Lowering::BalancedTree);
  // Forced lowerings ignore the profile.
  EXPECT_EQ(switchopt::choose(s, forced(Lowering::Cascade)).lowering, Lowering::Cascade);
  EXPECT_FALSE(switchopt::choose(s, forced(Lowering::Cascade)).byProfile);
}

TEST(PassHelpersChoose, AProfilesHotRunFirst) {
  switchopt::SwitchShape s = denseShape();
  s.profiled = true;
  s.profile = switchopt::ProfileCosts{};
  s.profile->tree = 352;
  s.profile->table = 160;
  s.profile->bst = 200;
  s.profile->hot = 104;
  s.profile->hotRun = 0;
  switchopt::Choice c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::HotFirst);
  EXPECT_EQ(c.hotRun, 0);
  EXPECT_EQ(c.where, s.where + " (profile, expected warp instructions: hot-first 104, table 160, bst 200, keep 352), the run 0..0 tested first");
  // A value table it beat stays unbuilt (hot-first-value-table.test: the value table was
  // emitted under this remark).
  s.valueTable = switchopt::ValueTable{};
  s.profile->valueTable = 120;
  c = switchopt::choose(s, autoPolicy());
  EXPECT_EQ(c.lowering, Lowering::HotFirst);
  EXPECT_TRUE(c.notes.empty());
  // So does one that the plain jump table beat.
  s.profile->hot = 1000;
  s.profile->valueTable = 161;
  EXPECT_EQ(switchopt::choose(s, autoPolicy()).lowering, Lowering::Table);
}

TEST(PassHelpersChoose, AForcedTableIsAJumpTableEvenWhereAValueTableIsPlanned) {
  switchopt::SwitchShape s = denseShape();
  s.valueTable = switchopt::ValueTable{};
  switchopt::Choice c = switchopt::choose(s, forced(Lowering::Table));
  EXPECT_EQ(c.lowering, Lowering::Table);
  EXPECT_TRUE(c.notes.empty());
  EXPECT_EQ(switchopt::choose(s, autoPolicy()).lowering, Lowering::ValueTable);
}
