// The helpers the if-conversion passes share, tested directly (issue #32, item 7): the
// conditional regions (`findIfRegion`), the lane facts of mask-regions and predication
// (`ThreadIndexFacts`), and the model of ptxas every cost model reads (`PtxasModel`,
// `BranchOdds`, `expectedBranchCost`, `convertedWins`). switch-opt's helpers are in
// SwitchHelpersTest.cpp, mask-regions' plans and costs in MaskRegionsHelpersTest.cpp, the
// guarded-code builder in GuardedCodeTest.cpp. These run without CUDA.
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
#include "ptxopt/analysis/Profile.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/passes/PtxasModel.h"

// The private headers of src/passes/ (tests/CMakeLists.txt puts that directory on the path).
#include "IfRegion.h"
#include "ThreadIndexFacts.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

std::vector<std::string> names(const std::vector<BasicBlock*>& blocks) {
  std::vector<std::string> out;
  for (const BasicBlock* b : blocks) out.push_back(b->name());
  return out;
}

}  // namespace

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
