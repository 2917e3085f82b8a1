// The pass helpers in src/passes/ tested directly (issue #32, item 7): the compare-tree node
// arithmetic of switch-opt (`valueOf`, `holds`), the depth of its balanced search tree
// (`bstDepth`), its choice of a lowering for hand-made switches (`choose`), the conditional
// regions of the if-conversion passes (`findIfRegion`), the lane facts of mask-regions and
// predication (`ThreadIndexFacts`), the model of ptxas they share (`PtxasModel`, `BranchOdds`,
// `expectedBranchCost`, `convertedWins`), and mask-regions' plans and costs (`buildPlan`,
// `ptxasKeptBranches`, `expectedCosts`, `decideRegion`). These run without CUDA; the lit tests
// reach the same code only through whole passes.
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
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Profile.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/passes/PtxasModel.h"

// The private headers of src/passes/ (tests/CMakeLists.txt puts that directory on the path).
#include "IfRegion.h"
#include "MaskRegionsCost.h"
#include "MaskRegionsPlan.h"
#include "SwitchChoice.h"
#include "SwitchCosts.h"
#include "SwitchTree.h"
#include "ThreadIndexFacts.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

BasicBlock* blockNamed(Function& f, std::string_view name) {
  for (BasicBlock* b : f.blocks())
    if (b->name() == name) return b;
  throw std::runtime_error("no block " + std::string(name));
}

// The first guarded bra of the function, in layout order.
const Instruction* firstConditionalBra(const Function& f) {
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts())
      if (i->is(Opcode::Bra) && i->hasGuard()) return i;
  throw std::runtime_error("no conditional bra");
}

std::vector<std::string> names(const std::vector<BasicBlock*>& blocks) {
  std::vector<std::string> out;
  for (const BasicBlock* b : blocks) out.push_back(b->name());
  return out;
}

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

// ---- findIfRegion ---------------------------------------------------------------------------

namespace {

const char* kRegs = ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n";
const char* kHead = "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n";

struct Region {
  std::unique_ptr<Module> m;
  Function* f = nullptr;
  explicit Region(const std::string& body) {
    m = parseOk(kernel(std::string(kRegs) + body));
    if (m) f = &onlyFunction(*m);
  }
  std::optional<IfRegion> at(std::string_view header, int64_t maxChain = 8) {
    return findIfRegion(*f, header.empty() ? f->entry() : blockNamed(*f, header), maxChain);
  }
};

}  // namespace

TEST(PassHelpersIfRegion, TriangleWithTheFallSide) {
  Region t(std::string(kHead) + "@%p1 bra $Lmerge;\n$Lside:\nadd.s32 %r2, %r1, 1;\n$Lmerge:\nret;");
  ASSERT_TRUE(t.f);
  auto r = t.at("");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->shape, "triangle");
  EXPECT_EQ(r->header, t.f->entry());
  EXPECT_EQ(r->branch, firstConditionalBra(*t.f));
  EXPECT_TRUE(r->taken.empty());
  EXPECT_EQ(names(r->fall), std::vector<std::string>{"$Lside"});
  EXPECT_EQ(r->merge, blockNamed(*t.f, "$Lmerge"));
}

TEST(PassHelpersIfRegion, TriangleWithTheTakenSide) {
  Region t(std::string(kHead) + "@%p1 bra $Lthen;\n$Lmerge:\nret;\n$Lthen:\nadd.s32 %r2, %r1, 1;\nbra.uni $Lmerge;");
  ASSERT_TRUE(t.f);
  auto r = t.at("");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->shape, "triangle");
  EXPECT_EQ(names(r->taken), std::vector<std::string>{"$Lthen"});
  EXPECT_TRUE(r->fall.empty());
  EXPECT_EQ(r->merge, blockNamed(*t.f, "$Lmerge"));
}

TEST(PassHelpersIfRegion, Diamond) {
  Region t(std::string(kHead) +
           "@%p1 bra $Lthen;\n$Lelse:\nmov.u32 %r2, 1;\nbra.uni $Ljoin;\n$Lthen:\nmov.u32 %r2, 2;\n"
           "$Ljoin:\nadd.s32 %r3, %r2, %r1;\nret;");
  ASSERT_TRUE(t.f);
  auto r = t.at("");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->shape, "diamond");
  EXPECT_EQ(names(r->taken), std::vector<std::string>{"$Lthen"});
  EXPECT_EQ(names(r->fall), std::vector<std::string>{"$Lelse"});
  EXPECT_EQ(r->merge, blockNamed(*t.f, "$Ljoin"));
  // The sides and the merge head no region.
  EXPECT_FALSE(t.at("$Lthen"));
  EXPECT_FALSE(t.at("$Ljoin"));
}

TEST(PassHelpersIfRegion, ExtendedShapesAndTheirChainLimit) {
  // Three blocks on the fall side: an extended triangle, found up to maxChain 3.
  Region tri(
      std::string(kHead) +
      "@%p1 bra $Lmerge;\n$Ls1:\nadd.s32 %r2, %r1, 1;\n$Ls2:\nadd.s32 %r2, %r2, 1;\n$Ls3:\nadd.s32 %r2, %r2, 1;\n"
      "$Lmerge:\nret;");
  ASSERT_TRUE(tri.f);
  auto r = tri.at("", 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->shape, "extended-triangle");
  EXPECT_EQ(names(r->fall), (std::vector<std::string>{"$Ls1", "$Ls2", "$Ls3"}));
  EXPECT_TRUE(r->taken.empty());
  EXPECT_TRUE(tri.at("", 100));
  EXPECT_FALSE(tri.at("", 2));
  EXPECT_FALSE(tri.at("", 0));

  // Two blocks then, one jumping to the merge, on the taken side and one on the fall side.
  Region dia(std::string(kHead) +
             "@%p1 bra $Lthen;\n$Lelse:\nmov.u32 %r2, 1;\nbra.uni $Ljoin;\n$Lthen:\nmov.u32 %r2, 2;\n"
             "$Lthen2:\nadd.s32 %r2, %r2, 5;\nbra.uni $Ljoin;\n$Ljoin:\nret;");
  ASSERT_TRUE(dia.f);
  auto d = dia.at("", 2);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->shape, "extended-diamond");
  EXPECT_EQ(names(d->taken), (std::vector<std::string>{"$Lthen", "$Lthen2"}));
  EXPECT_EQ(names(d->fall), std::vector<std::string>{"$Lelse"});
  EXPECT_EQ(d->merge, blockNamed(*dia.f, "$Ljoin"));
  EXPECT_FALSE(dia.at("", 1));
  // The longer side on the fall side.
  Region fallLong(std::string(kHead) +
                  "@%p1 bra $Lthen;\n$Lelse:\nmov.u32 %r2, 1;\n$Lelse2:\nadd.s32 %r2, %r2, 5;\nbra.uni $Ljoin;\n"
                  "$Lthen:\nmov.u32 %r2, 2;\n$Ljoin:\nret;");
  ASSERT_TRUE(fallLong.f);
  auto e = fallLong.at("", 2);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->shape, "extended-diamond");
  EXPECT_EQ(names(e->taken), std::vector<std::string>{"$Lthen"});
  EXPECT_EQ(names(e->fall), (std::vector<std::string>{"$Lelse", "$Lelse2"}));

  // A plain triangle and diamond need one block a side.
  Region one(std::string(kHead) + "@%p1 bra $Lmerge;\n$Lside:\nadd.s32 %r2, %r1, 1;\n$Lmerge:\nret;");
  ASSERT_TRUE(one.f);
  EXPECT_TRUE(one.at("", 1));
  EXPECT_FALSE(one.at("", 0));
}

TEST(PassHelpersIfRegion, RefusesASideThatReturnsOrExits) {
  // Unguarded ret on the fall side, exit on the taken side, and a guarded ret (one successor,
  // but not straight-line code).
  for (const char* stop : {"ret;", "exit;", "@%p2 ret;", "@%p2 exit;"}) {
    Region fall(std::string(kHead) + "setp.eq.u32 %p2, %r1, 3;\n@%p1 bra $Lmerge;\n$Lside:\nadd.s32 %r2, %r1, 1;\n" +
                stop + "\n$Lmerge:\nret;");
    ASSERT_TRUE(fall.f) << stop;
    EXPECT_FALSE(fall.at("")) << stop;
    Region taken(std::string(kHead) +
                 "setp.eq.u32 %p2, %r1, 3;\n@%p1 bra $Lthen;\n$Lelse:\nmov.u32 %r2, 1;\n"
                 "bra.uni $Ljoin;\n$Lthen:\nmov.u32 %r2, 2;\n" +
                 stop + "\nbra.uni $Ljoin;\n$Ljoin:\nret;");
    ASSERT_TRUE(taken.f) << stop;
    EXPECT_FALSE(taken.at("")) << stop;
  }
  // The same without the ret is a region (the refusal above is the ret's).
  Region ok(std::string(kHead) + "@%p1 bra $Lmerge;\n$Lside:\nadd.s32 %r2, %r1, 1;\n$Lmerge:\nret;");
  ASSERT_TRUE(ok.f);
  EXPECT_TRUE(ok.at(""));
}

TEST(PassHelpersIfRegion, RefusesASideWithItsOwnConditionalBranch) {
  Region t(std::string(kHead) +
           "setp.eq.u32 %p2, %r1, 3;\n@%p1 bra $Lmerge;\n$Lside:\nadd.s32 %r2, %r1, 1;\n@%p2 bra $Lmerge;\n"
           "$Lside2:\nadd.s32 %r2, %r2, 1;\n$Lmerge:\nret;");
  ASSERT_TRUE(t.f);
  EXPECT_FALSE(t.at(""));
}

TEST(PassHelpersIfRegion, RefusesASideThatIsALoop) {
  // The fall side loops on itself: its block has two predecessors, so it is no side.
  Region self(std::string(kHead) +
              "setp.eq.u32 %p2, %r1, 3;\n@%p1 bra $Lmerge;\n$Lloop:\nadd.s32 %r2, %r2, 1;\n@%p2 bra $Lloop;\n"
              "$Lmerge:\nret;");
  ASSERT_TRUE(self.f);
  EXPECT_FALSE(self.at(""));
  // A two-block loop after one plain side block.
  Region two(
      std::string(kHead) +
      "setp.eq.u32 %p2, %r1, 3;\n@%p1 bra $Lmerge;\n$Lpre:\nadd.s32 %r2, %r1, 1;\n$Lloop:\nadd.s32 %r2, %r2, 1;\n"
      "$Llatch:\nadd.s32 %r2, %r2, 2;\n@%p2 bra $Lloop;\n$Lmerge:\nret;");
  ASSERT_TRUE(two.f);
  EXPECT_FALSE(two.at(""));
  // Both sides of a diamond jump back to its header (a loop body): the merge would be the
  // header itself.
  Region back(
      "mov.u32 %r1, %tid.x;\n$Lh:\nadd.s32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 16;\nsetp.lt.u32 %p2, %r1, 99;\n"
      "@%p1 bra $Lthen;\n$Lelse:\nadd.s32 %r2, %r1, 1;\nbra.uni $Lh;\n$Lthen:\nadd.s32 %r2, %r1, 2;\nbra.uni $Lh;");
  ASSERT_TRUE(back.f);
  EXPECT_FALSE(back.at("$Lh"));
  // A branch to its own block.
  Region selfHead(
      "mov.u32 %r1, %tid.x;\n$Lh:\nadd.s32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra $Lh;\n"
      "$Lout:\nret;");
  ASSERT_TRUE(selfHead.f);
  EXPECT_FALSE(selfHead.at("$Lh"));
}

TEST(PassHelpersIfRegion, RefusesAHeaderWithoutAConditionalBranch) {
  Region t(std::string(kHead) + "bra.uni $Lmerge;\n$Lside:\nadd.s32 %r2, %r1, 1;\n$Lmerge:\nret;");
  ASSERT_TRUE(t.f);
  EXPECT_FALSE(t.at(""));
  // Both edges to one block.
  Region same(std::string(kHead) + "@%p1 bra $Lnext;\n$Lnext:\nret;");
  ASSERT_TRUE(same.f);
  EXPECT_FALSE(same.at(""));
}

TEST(PassHelpersIfRegion, AMergeWithoutALabelMustFollowTheHeaderInTheLayout) {
  // A diamond whose merge loses its label (as a block a pass created has none): H reaches it
  // only by falling through once the sides leave the layout.
  Region t(std::string(kHead) +
           "@%p1 bra $Lthen;\n$Lelse:\nmov.u32 %r2, 1;\nbra.uni $Ljoin;\n$Lthen:\nmov.u32 %r2, 2;\n"
           "$Ljoin:\nadd.s32 %r3, %r2, %r1;\nret;\n$Lother:\nret;");
  ASSERT_TRUE(t.f);
  BasicBlock* join = blockNamed(*t.f, "$Ljoin");
  BasicBlock* other = blockNamed(*t.f, "$Lother");
  join->setLabel(kNoLabel);
  ASSERT_FALSE(join->hasLabel());
  // Layout H, else, then, join: after the sides comes the merge.
  auto r = t.at("");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->merge, join);
  // Layout H, else, then, other, join: the merge does not follow (the CFG's edges are left as
  // they were; only the layout changes).
  auto& blocks = t.f->blocks();
  auto joinAt = std::find(blocks.begin(), blocks.end(), join);
  auto otherAt = std::find(blocks.begin(), blocks.end(), other);
  ASSERT_TRUE(joinAt != blocks.end() && otherAt != blocks.end());
  std::iter_swap(joinAt, otherAt);
  EXPECT_FALSE(t.at(""));
  // With its label back, the merge may be anywhere: H jumps to it.
  Region labelled(std::string(kHead) +
                  "@%p1 bra $Lthen;\n$Lelse:\nmov.u32 %r2, 1;\nbra.uni $Ljoin;\n$Lthen:\nmov.u32 %r2, 2;\n"
                  "$Ljoin:\nadd.s32 %r3, %r2, %r1;\nret;\n$Lother:\nret;");
  ASSERT_TRUE(labelled.f);
  auto& lb = labelled.f->blocks();
  std::iter_swap(std::find(lb.begin(), lb.end(), blockNamed(*labelled.f, "$Ljoin")),
                 std::find(lb.begin(), lb.end(), blockNamed(*labelled.f, "$Lother")));
  EXPECT_TRUE(labelled.at(""));
}

// ---- ThreadIndexFacts -----------------------------------------------------------------------

namespace {

struct Lanes {
  std::unique_ptr<Module> m;
  Function* f = nullptr;
  std::unique_ptr<FunctionAnalysisManager> am;
  std::optional<ThreadIndexFacts> facts;
  explicit Lanes(const std::string& body) {
    m = parseOk(kernel(".reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n" + body +
                           "\n@%p1 bra $Lend;\nadd.s32 %r11, %r11, 1;\n$Lend:\nret;",
                       ".param .u32 n, .param .u64 ptr"));
    if (!m) return;
    f = &onlyFunction(*m);
    am = std::make_unique<FunctionAnalysisManager>(*f);
    facts.emplace(am->get<CfgAnalysis>().rpo, am->get<UniformityAnalysis>().everDivergent());
  }
  bool threshold() const { return facts->thresholdBranch(*firstConditionalBra(*f)); }
  bool highBits() const { return facts->highTidBitsBranch(*firstConditionalBra(*f)); }
};

const char* kTid = "mov.u32 %r1, %tid.x;\n";
const char* kN = "ld.param.u32 %r2, [n];\n";

}  // namespace

TEST(PassHelpersThreadIndexFacts, ThresholdBranches) {
  struct Case {
    std::string body;
    bool threshold;
  };
  const std::vector<Case> cases = {
      // %tid.x against a kernel parameter, either side, and against an immediate.
      {std::string(kTid) + kN + "setp.lt.u32 %p1, %r1, %r2;", true},
      {std::string(kTid) + kN + "setp.gt.s32 %p1, %r2, %r1;", true},
      {std::string(kTid) + "setp.lt.u32 %p1, %r1, 16;", true},
      {"setp.ge.u32 %p1, %tid.x, 48;", true},
      // The global index: %ctaid.x * %ntid.x + %tid.x, through mad, add and cvt.
      {std::string(kTid) + kN +
           "mov.u32 %r3, %ctaid.x;\nmov.u32 %r4, %ntid.x;\nmad.lo.s32 %r5, %r3, %r4, %r1;\n"
           "setp.ge.s32 %p1, %r5, %r2;",
       true},
      {std::string(kTid) + kN +
           "add.s32 %r5, %r2, %r1;\nsub.s32 %r6, %r5, 7;\ncvt.u64.u32 %rd1, %r6;\n"
           "setp.lt.u64 %p1, %rd1, 1000;",
       true},
      {std::string(kTid) + kN + "mov.u32 %r3, %ctaid.x;\nadd.s32 %r5, %r3, %r1;\nsetp.ne.s32 %p1, %r5, %r2;", true},
      // Not lane-linear: a product, a shift, %tid.y, a uniform value, %laneid minus %tid.x.
      {std::string(kTid) + kN + "mul.lo.s32 %r5, %r1, 2;\nsetp.lt.s32 %p1, %r5, %r2;", false},
      {std::string(kTid) + kN + "shl.b32 %r5, %r1, 1;\nsetp.lt.s32 %p1, %r5, %r2;", false},
      {"mov.u32 %r1, %tid.y;\n" + std::string(kN) + "setp.lt.u32 %p1, %r1, %r2;", false},
      {std::string(kN) + "setp.lt.u32 %p1, %r2, 16;", false},
      {std::string(kTid) + "sub.s32 %r5, 100, %r1;\nsetp.lt.s32 %p1, %r5, 16;", false},
      // A bound that varies between lanes: a load from global memory, or %tid.x itself.
      {std::string(kTid) + "ld.param.u64 %rd1, [ptr];\nld.global.u32 %r3, [%rd1];\nsetp.lt.u32 %p1, %r1, %r3;", false},
      {std::string(kTid) + "setp.lt.u32 %p1, %r1, %r1;", false},
      // A mad whose factor varies.
      {std::string(kTid) + kN + "mad.lo.s32 %r5, %r1, %r2, %r2;\nsetp.lt.s32 %p1, %r5, %r2;", false},
      {std::string(kTid) + kN + "mad.lo.s32 %r5, %r2, %r1, %r1;\nsetp.lt.s32 %p1, %r5, %r2;", false},
      // The lane-linear register written twice, or under a guard.
      {std::string(kTid) + kN + "mov.u32 %r5, %r1;\nadd.s32 %r5, %r5, 1;\nsetp.lt.u32 %p1, %r5, %r2;", false},
      {std::string(kTid) + kN + "setp.eq.u32 %p2, %r2, 0;\n@%p2 mov.u32 %r5, %r1;\nsetp.lt.u32 %p1, %r5, %r2;", false},
      // Not an integer comparison of two operands: a float setp, and a setp with a combining
      // predicate.
      {std::string(kTid) + "cvt.rn.f32.u32 %f1, %r1;\nsetp.lt.f32 %p1, %f1, 0f41800000;", false},
      {std::string(kTid) + kN + "setp.eq.u32 %p3, %r2, 0;\nsetp.lt.and.u32 %p1, %r1, %r2, %p3;", false},
      // The branch's predicate is not a setp's.
      {std::string(kTid) + kN + "setp.lt.u32 %p2, %r1, %r2;\nnot.pred %p1, %p2;", false},
  };
  for (const Case& c : cases) {
    Lanes l(c.body);
    ASSERT_TRUE(l.f) << c.body;
    EXPECT_EQ(l.threshold(), c.threshold) << c.body;
  }
}

TEST(PassHelpersThreadIndexFacts, HighTidBitsBranches) {
  struct Case {
    std::string body;
    bool high;
  };
  const std::vector<Case> cases = {
      // (tid & C) against a multiple of 32, C a nonzero multiple of 32, either order.
      {std::string(kTid) + "and.b32 %r3, %r1, 32;\nsetp.eq.s32 %p1, %r3, 0;", true},
      {std::string(kTid) + "and.b32 %r3, 64, %r1;\nsetp.ne.s32 %p1, 64, %r3;", true},
      {"and.b32 %r3, %tid.x, 96;\nsetp.lt.u32 %p1, %r3, 32;", true},
      {std::string(kTid) + "cvt.u64.u32 %rd1, %r1;\nand.b64 %rd2, %rd1, 4096;\nsetp.eq.s64 %p1, %rd2, 0;", true},
      // Bits below 5 decide: a mask or a constant that is no multiple of 32, or a zero mask.
      {std::string(kTid) + "and.b32 %r3, %r1, 16;\nsetp.eq.s32 %p1, %r3, 0;", false},
      {std::string(kTid) + "and.b32 %r3, %r1, 33;\nsetp.eq.s32 %p1, %r3, 0;", false},
      {std::string(kTid) + "and.b32 %r3, %r1, 32;\nsetp.eq.s32 %p1, %r3, 16;", false},
      {std::string(kTid) + "and.b32 %r3, %r1, 0;\nsetp.eq.s32 %p1, %r3, 0;", false},
      // bitonic sort's partner test: (tid ^ C) against tid.
      {std::string(kTid) + "xor.b32 %r3, %r1, 64;\nsetp.gt.u32 %p1, %r3, %r1;", true},
      {std::string(kTid) + "xor.b32 %r3, %r1, 64;\nsetp.lt.u32 %p1, %r1, %r3;", true},
      {std::string(kTid) + "xor.b32 %r3, %r1, 8;\nsetp.gt.u32 %p1, %r3, %r1;", false},
      // Not %tid.x: %tid.y, %laneid, or tid plus a constant (lane-linear, but not tid).
      {"mov.u32 %r1, %tid.y;\nand.b32 %r3, %r1, 32;\nsetp.eq.s32 %p1, %r3, 0;", false},
      {"mov.u32 %r1, %laneid;\nand.b32 %r3, %r1, 32;\nsetp.eq.s32 %p1, %r3, 0;", false},
      {std::string(kTid) + "add.s32 %r2, %r1, 1;\nand.b32 %r3, %r2, 32;\nsetp.eq.s32 %p1, %r3, 0;", false},
      // The mask against a register, and a plain threshold.
      {std::string(kTid) + kN + "and.b32 %r3, %r1, 32;\nsetp.eq.s32 %p1, %r3, %r2;", false},
      {std::string(kTid) + "setp.lt.u32 %p1, %r1, 64;", false},
  };
  for (const Case& c : cases) {
    Lanes l(c.body);
    ASSERT_TRUE(l.f) << c.body;
    EXPECT_EQ(l.highBits(), c.high) << c.body;
  }
  // A high-bits test is no threshold (an and is not lane-linear), and a threshold no high-bits test.
  Lanes both(std::string(kTid) + "and.b32 %r3, %r1, 32;\nsetp.eq.s32 %p1, %r3, 0;");
  ASSERT_TRUE(both.f);
  EXPECT_TRUE(both.highBits());
  EXPECT_FALSE(both.threshold());
}

// ---- PtxasModel, BranchOdds, expectedBranchCost, convertedWins -------------------------------

namespace {

PtxasModel modelWith(std::map<std::string, std::string> overrides) {
  return PtxasModel(KnobValues(PtxasModel::knobs(), overrides));
}

}  // namespace

TEST(PassHelpersPtxasModel, DefaultsAndKnobs) {
  PtxasModel d;
  EXPECT_EQ(d.sideLimit(), 8);
  EXPECT_EQ(d.divergenceCost(), 4.0);
  // The knob defaults are the constructor's defaults.
  PtxasModel k = modelWith({});
  EXPECT_EQ(k.sideLimit(), 8);
  EXPECT_EQ(k.divergenceCost(), 4.0);
  PtxasModel o = modelWith({{"side-limit", "3"}, {"divergence-cost", "2.5"}});
  EXPECT_EQ(o.sideLimit(), 3);
  EXPECT_EQ(o.divergenceCost(), 2.5);
  EXPECT_EQ(PtxasModel::tableOverhead(true), 8u);
  EXPECT_EQ(PtxasModel::tableOverhead(false), 6u);
}

TEST(PassHelpersPtxasModel, PredicatesItself) {
  PtxasModel eight = modelWith({{"side-limit", "8"}});
  EXPECT_TRUE(eight.predicatesItself(0, 0));
  EXPECT_TRUE(eight.predicatesItself(8, 0));
  EXPECT_TRUE(eight.predicatesItself(8, 8));
  EXPECT_TRUE(eight.predicatesItself(1, 7));
  EXPECT_FALSE(eight.predicatesItself(9, 0));
  EXPECT_FALSE(eight.predicatesItself(0, 9));
  EXPECT_FALSE(eight.predicatesItself(8, 9));
  EXPECT_FALSE(eight.predicatesItself(UINT64_MAX, 1));
  // 0: ptxas converts nothing, not even empty sides.
  PtxasModel zero = modelWith({{"side-limit", "0"}});
  EXPECT_EQ(zero.sideLimit(), 0);
  EXPECT_FALSE(zero.predicatesItself(0, 0));
  EXPECT_FALSE(zero.predicatesItself(1, 0));
  EXPECT_FALSE(zero.predicatesItself(0, 1));
  // A negative limit converts nothing either (it is not read as a huge unsigned limit).
  PtxasModel negative = modelWith({{"side-limit", "-1"}});
  EXPECT_FALSE(negative.predicatesItself(0, 0));
  EXPECT_FALSE(negative.predicatesItself(5, 5));
}

TEST(PassHelpersPtxasModel, OddsFromCounts) {
  BranchCounts c;
  c.allTaken = 3;
  c.allNotTaken = 1;
  c.divergent = 4;
  BranchOdds o = BranchOdds::fromCounts(c);
  EXPECT_DOUBLE_EQ(o.taken, 7.0 / 8);
  EXPECT_DOUBLE_EQ(o.fall, 5.0 / 8);
  EXPECT_DOUBLE_EQ(o.split, 1.0 / 2);
  // Never split: taken and fall add up to one.
  BranchCounts u;
  u.allTaken = 1;
  u.allNotTaken = 3;
  BranchOdds ou = BranchOdds::fromCounts(u);
  EXPECT_DOUBLE_EQ(ou.taken, 0.25);
  EXPECT_DOUBLE_EQ(ou.fall, 0.75);
  EXPECT_DOUBLE_EQ(ou.split, 0);
  // Always split: both sides every time.
  BranchCounts s;
  s.divergent = 5;
  BranchOdds os = BranchOdds::fromCounts(s);
  EXPECT_DOUBLE_EQ(os.taken, 1);
  EXPECT_DOUBLE_EQ(os.fall, 1);
  EXPECT_DOUBLE_EQ(os.split, 1);
}

TEST(PassHelpersPtxasModel, OddsFromAPrior) {
  BranchOdds q = BranchOdds::fromPrior(true, 0.25);
  EXPECT_DOUBLE_EQ(q.taken, 0.625);
  EXPECT_DOUBLE_EQ(q.fall, 0.625);
  EXPECT_DOUBLE_EQ(q.split, 0.25);
  // The prior is clamped to 1 (it is a share of the executions).
  for (double p : {1.0, 1.5, 40.0}) {
    BranchOdds c = BranchOdds::fromPrior(true, p);
    EXPECT_DOUBLE_EQ(c.taken, 1) << p;
    EXPECT_DOUBLE_EQ(c.fall, 1) << p;
    EXPECT_DOUBLE_EQ(c.split, 1) << p;
  }
  // A uniform branch never splits, whatever the prior.
  for (double p : {0.0, 0.5, 3.0}) {
    BranchOdds u = BranchOdds::fromPrior(false, p);
    EXPECT_DOUBLE_EQ(u.taken, 0.5) << p;
    EXPECT_DOUBLE_EQ(u.fall, 0.5) << p;
    EXPECT_DOUBLE_EQ(u.split, 0) << p;
  }
  BranchOdds none = BranchOdds::fromPrior(true, 0);
  EXPECT_DOUBLE_EQ(none.taken, 0.5);
  EXPECT_DOUBLE_EQ(none.split, 0);
}

TEST(PassHelpersPtxasModel, ExpectedBranchCost) {
  BranchCounts c;
  c.allTaken = 3;
  c.allNotTaken = 1;
  c.divergent = 4;
  BranchOdds o = BranchOdds::fromCounts(c);
  // 1 (the branch) + 7/8 * 8 + 5/8 * 16 + 1/2 * 4 = 1 + 7 + 10 + 2.
  EXPECT_DOUBLE_EQ(expectedBranchCost(PtxasModel(), o, 8, 16), 20);
  // With divergence-cost 10: 1 + 7 + 10 + 5.
  EXPECT_DOUBLE_EQ(expectedBranchCost(modelWith({{"divergence-cost", "10"}}), o, 8, 16), 23);
  // Empty sides: the branch and the divergence.
  EXPECT_DOUBLE_EQ(expectedBranchCost(PtxasModel(), o, 0, 0), 3);
  // Uniform prior: 1 + 6/2 + 2/2.
  EXPECT_DOUBLE_EQ(expectedBranchCost(PtxasModel(), BranchOdds::fromPrior(false, 0.5), 6, 2), 5);
  // Always split: 1 + 6 + 2 + 4.
  EXPECT_DOUBLE_EQ(expectedBranchCost(PtxasModel(), BranchOdds::fromPrior(true, 2), 6, 2), 13);
}

TEST(PassHelpersPtxasModel, ConvertedWinsOnTies) {
  EXPECT_TRUE(convertedWins(4, 5));
  EXPECT_TRUE(convertedWins(5, 5));
  EXPECT_TRUE(convertedWins(5 + 1e-12, 5));  // rounding of the sums
  EXPECT_TRUE(convertedWins(0.1 + 0.2, 0.3));
  EXPECT_FALSE(convertedWins(5.001, 5));
  EXPECT_FALSE(convertedWins(6, 5));
  // The divergent counts above: converting 20 instructions ties, 20.5 loses.
  BranchCounts c;
  c.allTaken = 3;
  c.allNotTaken = 1;
  c.divergent = 4;
  double branching = expectedBranchCost(PtxasModel(), BranchOdds::fromCounts(c), 8, 16);
  EXPECT_TRUE(convertedWins(20, branching));
  EXPECT_FALSE(convertedWins(20.5, branching));
}

TEST(PassHelpersPtxasModel, IsLoad) {
  auto m = parseOk(
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".const .align 4 .b32 table[4];\n"
      ".visible .entry k(.param .u64 ptr)\n{\n"
      ".reg .b32 %r<16>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b32 sh[32];\n.local .align 4 .b32 loc[4];\n"
      "ld.param.u64 %rd1, [ptr];\n"
      "ld.param::entry.u64 %rd2, [ptr];\n"
      "ld.global.u32 %r1, [%rd1];\n"
      "ld.global.nc.u32 %r2, [%rd1];\n"
      "ld.const.u32 %r3, [table];\n"
      "ld.shared.u32 %r4, [sh];\n"
      "ld.shared::cta.u32 %r11, [sh];\n"
      "ld.shared::cluster.u32 %r12, [%rd1];\n"
      "ld.local.u32 %r5, [loc];\n"
      "ld.u32 %r6, [%rd1];\n"
      "ldu.global.u32 %r7, [%rd1];\n"
      "atom.global.add.u32 %r8, [%rd1], 1;\n"
      "atom.shared.exch.b32 %r9, [sh], 2;\n"
      "st.global.u32 [%rd1], %r1;\n"
      "add.s32 %r10, %r1, %r2;\n"
      "ret;\n}\n");
  ASSERT_TRUE(m);
  Function& f = onlyFunction(*m);
  // Expected answer by the instruction's printed start.
  const std::vector<std::pair<std::string, bool>> expected = {
      {"ld.param.u64", false},
      {"ld.param::entry.u64", false},
      {"ld.global.u32", true},
      {"ld.global.nc.u32", true},
      {"ld.const.u32", false},
      {"ld.shared.u32", true},
      {"ld.shared::cta.u32", true},
      {"ld.shared::cluster.u32", true},
      {"ld.local.u32", true},
      {"ld.u32", true},
      {"ldu.global.u32", true},
      {"atom.global.add.u32", false},
      {"atom.shared.exch.b32", false},
      {"st.global.u32", false},
      {"add.s32", false},
      {"ret", false},
  };
  std::vector<const Instruction*> insts;
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts())
      if (!i->info().isPseudo()) insts.push_back(i);
  ASSERT_EQ(insts.size(), expected.size());
  for (size_t k = 0; k < insts.size(); ++k) {
    std::string text = printInstruction(f, *insts[k]);
    text.erase(0, text.find_first_not_of(" \t"));
    EXPECT_EQ(text.rfind(expected[k].first, 0), 0u) << "instruction " << k << ": " << text;
    EXPECT_EQ(PtxasModel::isLoad(*insts[k]), expected[k].second) << text;
  }
}

TEST(PassHelpersPtxasModel, IsLoadOfADeviceFunctionsParameters) {
  // ld.param::func and ld.param in a .func read the caller's arguments: not loads.
  auto m = parseOk(
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".func (.param .b32 out) f(.param .b32 a)\n{\n.reg .b32 %r<4>;\n"
      "ld.param::func.b32 %r1, [a];\nld.param.b32 %r2, [a];\nst.param.b32 [out], %r1;\nret;\n}\n");
  ASSERT_TRUE(m);
  Function& f = onlyFunction(*m);
  std::vector<const Instruction*> insts;
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts())
      if (!i->info().isPseudo()) insts.push_back(i);
  ASSERT_EQ(insts.size(), 4u);
  EXPECT_EQ(insts[0]->space(), StateSpace::ParamFunc);
  for (const Instruction* i : insts) EXPECT_FALSE(PtxasModel::isLoad(*i)) << printInstruction(f, *i);
}

// ---- mask-regions: buildPlan, ptxasKeptBranches, expectedCosts, decideRegion ----------------

namespace {

using maskregions::Plan;

const char* kMaskRegs = ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<4>;\n";
// E: a branch on bit 0 of %tid.x (divergent, no threshold, no high bits) to $Lthen.
const char* kMaskHead =
    "ld.param.u64 %rd1, [ptr];\nmov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 0;\n"
    "@%p1 bra $Lthen;\n";

// `n` instructions that write %r3 (live after the region: $Ljoin stores it).
std::string adds(int n) {
  std::string s = "add.s32 %r3, %r1, 1;\n";
  for (int k = 1; k < n; ++k) s += "add.s32 %r3, %r3, 1;\n";
  return s;
}

// A diamond from the entry: `fall` on $Lelse, `taken` on $Lthen, joined at $Ljoin.
std::string diamond(const std::string& fall, const std::string& taken) {
  return std::string(kMaskHead) + "$Lelse:\n" + fall + "bra.uni $Ljoin;\n$Lthen:\n" + taken +
         "$Ljoin:\nst.global.u32 [%rd1], %r3;\nret;";
}

// An outer diamond whose taken side holds a triangle: $Lthen branches on %p2 over $Linner
// (`inner`) to $Lthenend, which falls into $Ljoin.
std::string nested(const std::string& fall, const std::string& inner) {
  return std::string(kMaskHead) + "$Lelse:\n" + fall +
         "bra.uni $Ljoin;\n$Lthen:\nsetp.lt.u32 %p2, %r1, 8;\n@%p2 bra $Lthenend;\n$Linner:\n" + inner +
         "$Lthenend:\nadd.s32 %r3, %r3, 7;\n$Ljoin:\nst.global.u32 [%rd1], %r3;\nret;";
}

// The plan mask-regions builds for the region at the entry, with the pass's default knobs.
struct MaskRegion {
  std::unique_ptr<Module> m;
  Function* f = nullptr;
  std::unique_ptr<FunctionAnalysisManager> am;
  std::optional<DefinitionSites> defSites;
  std::unordered_set<std::string_view> pinned;
  std::unordered_set<const BasicBlock*> touched;
  maskregions::Refusal refusal;
  std::optional<Plan> plan;
  explicit MaskRegion(const std::string& body) {
    m = parseOk(kernel(std::string(kMaskRegs) + body, ".param .u64 ptr"));
    if (!m) return;
    f = &onlyFunction(*m);
    am = std::make_unique<FunctionAnalysisManager>(*f);
    const CfgInfo& g = cfg();
    defSites.emplace(*f);
    maskregions::PlanInputs in{*f,      g,      am->get<DominatorAnalysis>(), am->get<PostDominatorAnalysis>(),
                               uni(),   am->get<LivenessAnalysis>(),         *defSites,
                               pinned,  touched, /*speculate=*/true,         /*syncVotes=*/1,
                               /*bosccMin=*/40};
    plan = maskregions::buildPlan(uint32_t(g.index(f->entry())), in, refusal);
  }
  const CfgInfo& cfg() const { return am->get<CfgAnalysis>(); }
  const UniformityInfo& uni() const { return am->get<UniformityAnalysis>(); }
  unsigned kept(const PtxasModel& ptxas, bool withLoads = false) const {
    return maskregions::ptxasKeptBranches(*plan, cfg(), ptxas, withLoads);
  }
  // The conditional bra that ends block `name`.
  const Instruction* branchOf(std::string_view name) const {
    return conditionalBranch(*blockNamed(*f, name));
  }
};

// expectedCosts with `counts` bound to the branches (E's is `c`, null: no profile).
std::pair<double, double> costs(const MaskRegion& r, const BranchCounts* c, double prior,
                                const BranchCountsByInstruction& counts = {}, const PtxasModel& ptxas = PtxasModel()) {
  KnobValues none;
  PassContext ctx("mask-regions", *r.f, none, ptxas, nullptr, &counts);
  maskregions::CostKnobs k;
  k.prior = prior;
  k.treeDivergenceCost = 1.5;
  return maskregions::expectedCosts(*r.plan, r.cfg(), c, ctx, r.uni(), k);
}

BranchCounts countsOf(uint64_t allTaken, uint64_t allNotTaken, uint64_t divergent) {
  BranchCounts c;
  c.allTaken = allTaken;
  c.allNotTaken = allNotTaken;
  c.divergent = divergent;
  return c;
}

}  // namespace

TEST(PassHelpersMaskRegions, PlanOfADiamond) {
  MaskRegion r(diamond(adds(5), adds(3)));
  ASSERT_TRUE(r.f);
  ASSERT_TRUE(r.plan) << r.refusal.reason << ": " << r.refusal.text;
  EXPECT_EQ(r.plan->order.size(), 3u);  // E and the two sides; $Ljoin is X
  EXPECT_EQ(r.plan->exit, uint32_t(r.cfg().index(blockNamed(*r.f, "$Ljoin"))));
  EXPECT_EQ(r.plan->size, 8u);
  EXPECT_EQ(r.plan->branches, 1u);
  EXPECT_EQ(r.plan->depth, 1u);
  EXPECT_TRUE(r.plan->tree);
  EXPECT_EQ(r.plan->mergedDefs, 2u);  // %r3 on each side
  // The sides' masks are %p1 and !%p1 themselves: nothing added.
  EXPECT_EQ(r.plan->extra, 0u);
  // A warp-uniform entry branch is refused before any plan.
  MaskRegion u("ld.param.u64 %rd1, [ptr];\nmov.u32 %r1, %ctaid.x;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra $Lthen;\n"
               "$Lelse:\n" + adds(1) + "bra.uni $Ljoin;\n$Lthen:\n" + adds(1) +
               "$Ljoin:\nst.global.u32 [%rd1], %r3;\nret;");
  ASSERT_TRUE(u.f);
  EXPECT_FALSE(u.plan);
  EXPECT_EQ(u.refusal.reason, "uniform");
}

TEST(PassHelpersMaskRegions, PtxasKeptBranchesOfADiamond) {
  // Sides of 5 and 3 instructions: ptxas predicates the diamond itself (side-limit 8) ...
  MaskRegion small(diamond(adds(5), adds(3)));
  ASSERT_TRUE(small.plan);
  EXPECT_EQ(small.kept(PtxasModel()), 0u);
  EXPECT_EQ(small.kept(modelWith({{"side-limit", "5"}})), 0u);
  // ... but keeps the branch when a side is longer than the limit, or converts nothing.
  EXPECT_EQ(small.kept(modelWith({{"side-limit", "4"}})), 1u);
  EXPECT_EQ(small.kept(modelWith({{"side-limit", "0"}})), 1u);
  // A side of 9 instructions: kept at the default limit.
  MaskRegion big(diamond(adds(9), adds(1)));
  ASSERT_TRUE(big.plan);
  EXPECT_EQ(big.kept(PtxasModel()), 1u);
  EXPECT_EQ(big.kept(modelWith({{"side-limit", "9"}})), 0u);
}

TEST(PassHelpersMaskRegions, PtxasKeptBranchesReplaysNestedLevels) {
  // The inner triangle collapses into $Lthen, which then is one block of 1 + 1 + 1
  // instructions with $Lthenend: the outer diamond collapses too.
  MaskRegion r(nested(adds(2), "mul.lo.s32 %r3, %r1, 3;\n"));
  ASSERT_TRUE(r.plan);
  EXPECT_EQ(r.plan->branches, 2u);
  EXPECT_EQ(r.plan->depth, 2u);
  EXPECT_FALSE(r.plan->tree);  // $Lthenend has two predecessors
  EXPECT_EQ(r.kept(PtxasModel()), 0u);
  // A limit of 2 still takes the inner side (1) but not the merged outer one (3).
  EXPECT_EQ(r.kept(modelWith({{"side-limit", "2"}})), 1u);
  // An inner side of 9: neither level collapses (the outer side is no single block).
  MaskRegion deep(nested(adds(2), adds(9)));
  ASSERT_TRUE(deep.plan);
  EXPECT_EQ(deep.kept(PtxasModel()), 2u);
}

TEST(PassHelpersMaskRegions, PtxasKeptBranchesAroundLoads) {
  // Two loads on a side: ptxas predicates the diamond by size, but branches around the loads.
  MaskRegion r(diamond(adds(1), "ld.global.u32 %r4, [%rd1];\nld.global.u32 %r5, [%rd1+4];\nadd.s32 %r3, %r4, %r5;\n"));
  ASSERT_TRUE(r.plan);
  EXPECT_EQ(r.kept(PtxasModel(), false), 0u);
  EXPECT_EQ(r.kept(PtxasModel(), true), 1u);
  maskregions::notePtxasFigures(*r.plan, r.cfg(), PtxasModel());
  EXPECT_EQ(r.plan->ptxasKept, 0u);
  EXPECT_EQ(r.plan->ptxasKeptLoads, 1u);
  EXPECT_EQ(r.plan->loadBlocks, 1u);
  // One load is no reason.
  MaskRegion one(diamond(adds(1), "ld.global.u32 %r4, [%rd1];\nadd.s32 %r3, %r4, 1;\n"));
  ASSERT_TRUE(one.plan);
  EXPECT_EQ(one.kept(PtxasModel(), true), 0u);
}

TEST(PassHelpersMaskRegions, ExpectedCostsWithAPrior) {
  MaskRegion r(diamond(adds(5), adds(3)));
  ASSERT_TRUE(r.plan);
  ASSERT_EQ(r.plan->extra, 0u);
  // Straight-line: the 8 instructions on every entry. Branching: the branch, each side in
  // (1 + d) / 2 of the entries, and divergence-cost 4 in the d that split.
  auto [linear, branching] = costs(r, nullptr, 0.5);
  EXPECT_DOUBLE_EQ(linear, 8);
  EXPECT_DOUBLE_EQ(branching, 1 + 0.75 * 5 + 0.75 * 3 + 0.5 * 4);  // 9
  EXPECT_DOUBLE_EQ(costs(r, nullptr, 0).second, 1 + 0.5 * 8);       // never splits: 5
  EXPECT_DOUBLE_EQ(costs(r, nullptr, 1).second, 1 + 8 + 4);         // always: 13
  EXPECT_DOUBLE_EQ(costs(r, nullptr, 7).second, 13);                // clamped to 1
  EXPECT_DOUBLE_EQ(costs(r, nullptr, 1, {}, modelWith({{"divergence-cost", "10"}})).second, 1 + 8 + 10);
}

TEST(PassHelpersMaskRegions, ExpectedCostsOfNestedBranchesWithAPrior) {
  // $Lthen (1 instruction and a branch on %p2), $Linner (2), $Lthenend (1), $Lelse (5).
  MaskRegion r(nested(adds(5), adds(2)));
  ASSERT_TRUE(r.plan);
  // $Linner's mask is `and.pred` of $Lthen's and !%p2; $Lthenend takes $Lthen's.
  ASSERT_EQ(r.plan->extra, 1u);
  auto [linear, branching] = costs(r, nullptr, 0.5);
  EXPECT_DOUBLE_EQ(linear, 5 + 1 + 2 + 1 + 1);
  // E: 1 + 0.5 * 4; $Lelse and $Lthen reached in 0.75; $Lthen's branch 0.75 * (1 + 0.5 * 4);
  // $Linner in 0.75 * 0.75; $Lthenend, a join, in 0.75 * 0.75 + 0.5625 capped at one per
  // entry (the model's rule: at most once per entry of E, not of $Lthen).
  double expected = 3 + 0.75 * 5 + 0.75 * 1 + 0.75 * 3 + 0.5625 * 2 + 1 * 1;
  EXPECT_DOUBLE_EQ(branching, expected);
  // A uniform inner branch never splits and goes each way in half of the executions.
  MaskRegion u(std::string(kMaskHead) + "$Lelse:\n" + adds(5) +
               "bra.uni $Ljoin;\n$Lthen:\nmov.u32 %r6, %ctaid.x;\nsetp.lt.u32 %p2, %r6, 8;\n@%p2 bra $Lthenend;\n"
               "$Linner:\n" + adds(2) + "$Lthenend:\nadd.s32 %r3, %r3, 7;\n$Ljoin:\nst.global.u32 [%rd1], %r3;\nret;");
  ASSERT_TRUE(u.plan);
  double uniformInner = 3 + 0.75 * 5 + 0.75 * 2 + 0.75 * 1 + 0.375 * 2 + 0.75 * 1;
  EXPECT_DOUBLE_EQ(costs(u, nullptr, 0.5).second, uniformInner);
}

TEST(PassHelpersMaskRegions, ExpectedCostsWithAProfile) {
  MaskRegion r(diamond(adds(5), adds(3)));
  ASSERT_TRUE(r.plan);
  // 8 executions of E: 3 all to $Lthen, 1 all to $Lelse, 4 split. The region is a tree, so a
  // split costs tree-divergence-cost (1.5), not divergence-cost. (E's odds come from the
  // profile bound to its branch, as in the pass; `c` gives the executions.)
  BranchCounts c = countsOf(3, 1, 4);
  BranchCountsByInstruction atE{{firstConditionalBra(*r.f), &c}};
  auto [linear, branching] = costs(r, &c, 0.5, atE);
  EXPECT_DOUBLE_EQ(linear, 8);
  EXPECT_DOUBLE_EQ(branching, 1 + 7.0 / 8 * 3 + 5.0 / 8 * 5 + 0.5 * 1.5);  // 7.5
  // The prior plays no part with a profile.
  EXPECT_DOUBLE_EQ(costs(r, &c, 0, atE).second, 7.5);
  // Never split, always to the 3-instruction side.
  BranchCounts t = countsOf(10, 0, 0);
  EXPECT_DOUBLE_EQ(costs(r, &t, 0.5, {{firstConditionalBra(*r.f), &t}}).second, 1 + 3);

  // Nested (no tree: splits cost divergence-cost 4). The inner branch's own counts: 2 of its
  // 4 executions to $Lthenend, 2 split.
  MaskRegion n(nested(adds(5), adds(2)));
  ASSERT_TRUE(n.plan);
  BranchCounts inner = countsOf(2, 0, 2);
  BranchCountsByInstruction bound{{firstConditionalBra(*n.f), &c}, {n.branchOf("$Lthen"), &inner}};
  // $Lthen in 7/8; $Linner (fall) in 7/8 * 1/2; $Lthenend in 7/8 * 1 + 7/16, capped at 1.
  double withInner = 1 + 0.5 * 4 + 5.0 / 8 * 5 + 7.0 / 8 * (1 + 1 + 0.5 * 4) + 7.0 / 16 * 2 + 1;
  EXPECT_DOUBLE_EQ(costs(n, &c, 0.5, bound).second, withInner);
  // Without counts for the inner branch: half each way, half split (the model's rule).
  double withoutInner = 1 + 0.5 * 4 + 5.0 / 8 * 5 + 7.0 / 8 * (1 + 1 + 0.5 * 4) + 7.0 / 16 * 2 + 7.0 / 8;
  EXPECT_DOUBLE_EQ(costs(n, &c, 0.5, {{firstConditionalBra(*n.f), &c}}).second, withoutInner);
}

TEST(PassHelpersMaskRegions, DecideRegion) {
  // One branch ptxas predicates itself, defining %r3 live after the region: ptxas-triangle.
  MaskRegion r(diamond(adds(5), adds(3)));
  ASSERT_TRUE(r.plan);
  maskregions::notePtxasFigures(*r.plan, r.cfg(), PtxasModel());
  ThreadIndexFacts facts(r.cfg().rpo, r.uni().everDivergent());
  KnobValues none;
  PtxasModel ptxas;
  PassContext ctx("mask-regions", *r.f, none, ptxas);
  maskregions::CostKnobs k;
  k.maxSize = 48, k.maxDepth = 8, k.maxLiveMasks = 5, k.maxExtra = 24, k.prior = 0.5;
  maskregions::Decision d = maskregions::decideRegion(*r.plan, r.cfg(), r.uni(), facts, ctx, k);
  EXPECT_FALSE(d.convert);
  EXPECT_STREQ(d.reason, "ptxas-triangle");
  EXPECT_EQ(d.model, nullptr);
  // Without the check, the prior decides: 8 straight-line against 9 branching converts.
  k.ptxasTriangleCheck = false;
  d = maskregions::decideRegion(*r.plan, r.cfg(), r.uni(), facts, ctx, k);
  EXPECT_TRUE(d.convert);
  ASSERT_NE(d.model, nullptr);
  EXPECT_STREQ(d.model, "prior");
  EXPECT_EQ(d.why,
            "no profile: with divergence-prior 0.50, expected 8.00 instructions straight-line against 9.00 "
            "branching");
  // A prior of 0 (no split) keeps it: 8 against 5.
  k.prior = 0;
  d = maskregions::decideRegion(*r.plan, r.cfg(), r.uni(), facts, ctx, k);
  EXPECT_FALSE(d.convert);
  EXPECT_STREQ(d.reason, "prior");
  EXPECT_STREQ(d.model, "prior");
  // The limits come first.
  k.maxSize = 7;
  d = maskregions::decideRegion(*r.plan, r.cfg(), r.uni(), facts, ctx, k);
  EXPECT_STREQ(d.reason, "size");
  EXPECT_EQ(d.why, "larger than max-size 7");
  EXPECT_EQ(d.model, nullptr);
  // A side ptxas keeps (9 instructions): no ptxas-triangle, the prior converts (10 against
  // 1 + 0.75 * 10 + 2 = 10.5).
  MaskRegion big(diamond(adds(9), adds(1)));
  ASSERT_TRUE(big.plan);
  maskregions::notePtxasFigures(*big.plan, big.cfg(), PtxasModel());
  ThreadIndexFacts bigFacts(big.cfg().rpo, big.uni().everDivergent());
  PassContext bigCtx("mask-regions", *big.f, none, ptxas);
  maskregions::CostKnobs kb;
  kb.maxSize = 48, kb.maxDepth = 8, kb.maxLiveMasks = 5, kb.maxExtra = 24, kb.prior = 0.5;
  d = maskregions::decideRegion(*big.plan, big.cfg(), big.uni(), bigFacts, bigCtx, kb);
  EXPECT_TRUE(d.convert) << d.reason << ": " << d.why;
  EXPECT_EQ(big.plan->ptxasKept, 1u);
}
