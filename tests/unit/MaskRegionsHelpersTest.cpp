// mask-regions' plans and costs tested directly (issue #32): `buildPlan`, `ptxasKeptBranches`,
// `expectedCosts` with a prior and with a profile, and `decideRegion`. These run without CUDA; the
// lit tests reach the same code only through whole passes.
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
#include "GuardedCode.h"
#include "MaskRegionsCost.h"
#include "MaskRegionsPlan.h"

using namespace ptxopt;
using namespace ptxopt::test;

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
  std::optional<maskregions::LazyDefinitionSites> defSites;
  std::unordered_set<std::string_view> pinned;
  std::unordered_set<const BasicBlock*> touched;
  std::vector<size_t> layout;
  maskregions::Refusal refusal;
  std::optional<Plan> plan;
  explicit MaskRegion(const std::string& body) {
    m = parseOk(kernel(std::string(kMaskRegs) + body, ".param .u64 ptr"));
    if (!m) return;
    f = &onlyFunction(*m);
    am = std::make_unique<FunctionAnalysisManager>(*f);
    const CfgInfo& g = cfg();
    defSites.emplace(*f);
    layout = maskregions::layoutByRpo(*f, g);
    scratch.emplace(g.size());
    maskregions::PlanInputs in{*f,      g,      am->get<DominatorAnalysis>(), am->get<PostDominatorAnalysis>(),
                               uni(),   am->get<LivenessAnalysis>(),         *defSites,
                               pinned,  touched, layout, *scratch, /*speculate=*/true, /*syncVotes=*/1,
                               /*bosccMin=*/40};
    plan = maskregions::buildPlan(uint32_t(g.index(f->entry())), in, refusal);
  }
  // The plan at the branch that ends block `b`, built with the walk's arrays or fresh ones.
  std::optional<Plan> planAt(const BasicBlock* b, bool freshScratch) {
    const CfgInfo& g = cfg();
    maskregions::PlanScratch fresh(g.size());
    maskregions::PlanInputs in{*f,      g,      am->get<DominatorAnalysis>(), am->get<PostDominatorAnalysis>(),
                               uni(),   am->get<LivenessAnalysis>(),         *defSites,
                               pinned,  touched, layout, freshScratch ? fresh : *scratch, /*speculate=*/true,
                               /*syncVotes=*/1, /*bosccMin=*/40};
    maskregions::Refusal why;
    return maskregions::buildPlan(uint32_t(g.index(b)), in, why);
  }
  // The walk's shared arrays as a fresh PlanScratch has them (every plan must leave them so).
  bool scratchClean() const {
    const maskregions::PlanScratch& s = *scratch;
    for (size_t b = 0; b < s.blocks; ++b)
      if (s.in[b] || s.seen[b] || s.pos[b] != -1 || s.indeg[b] || s.nest[b] || !s.contrib[b].empty() || !s.mask[b].all())
        return false;
    return true;
  }
  std::optional<maskregions::PlanScratch> scratch;
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

TEST(PassHelpersMaskRegions, PlansLeaveTheWalksArraysClean) {
  // The plans of a walk share arrays by block (PlanScratch): each plan, built or refused, leaves
  // them as it found them, so that the next plan is the one fresh arrays would give.
  MaskRegion r(nested(adds(2), "mul.lo.s32 %r3, %r1, 3;\n"));
  ASSERT_TRUE(r.f);
  ASSERT_TRUE(r.plan) << r.refusal.reason << ": " << r.refusal.text;
  EXPECT_TRUE(r.scratchClean());
  std::optional<Plan> shared = r.planAt(blockNamed(*r.f, "$Lthen"), false),
                     fresh = r.planAt(blockNamed(*r.f, "$Lthen"), true);
  ASSERT_TRUE(shared && fresh);
  EXPECT_TRUE(r.scratchClean());
  EXPECT_EQ(shared->order, fresh->order);
  EXPECT_EQ(shared->steps.size(), fresh->steps.size());
  EXPECT_EQ(shared->exit, fresh->exit);
  EXPECT_EQ(shared->extra, fresh->extra);
  EXPECT_EQ(shared->depth, fresh->depth);
  // The entry's plan again, after the inner one: the same as the first.
  std::optional<Plan> outer = r.planAt(r.f->entry(), false);
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->order, r.plan->order);
  EXPECT_EQ(outer->steps.size(), r.plan->steps.size());
  EXPECT_EQ(outer->depth, r.plan->depth);
  EXPECT_TRUE(r.scratchClean());
  // A refused region (warp-uniform) leaves them clean too.
  MaskRegion u("ld.param.u64 %rd1, [ptr];\nmov.u32 %r1, %ctaid.x;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra $Lthen;\n"
               "$Lelse:\n" + adds(1) + "bra.uni $Ljoin;\n$Lthen:\n" + adds(1) +
               "$Ljoin:\nst.global.u32 [%rd1], %r3;\nret;");
  ASSERT_TRUE(u.f);
  EXPECT_FALSE(u.plan);
  EXPECT_TRUE(u.scratchClean());
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
            "branching (prior-margin 0.00)");
  // With prior-margin 0.2 the gain (1 in 9) is too small: kept.
  k.priorMargin = 0.2;
  d = maskregions::decideRegion(*r.plan, r.cfg(), r.uni(), facts, ctx, k);
  EXPECT_FALSE(d.convert);
  EXPECT_STREQ(d.reason, "prior");
  k.priorMargin = 0;
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
