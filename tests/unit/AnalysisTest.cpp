// Analyses on hand-written CFGs: diamonds, two exits, an infinite loop, an irreducible CFG,
// nested loops, a loop with a divergent exit.
#include "TestUtil.h"
#include "ptxopt/analysis/AnalysisPrinter.h"
#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Loops.h"
#include "ptxopt/analysis/MemorySpace.h"
#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

struct Fixture {
  std::unique_ptr<Module> m;
  Function* f = nullptr;
  std::unique_ptr<FunctionAnalysisManager> am;

  explicit Fixture(const std::string& body, const std::string& params = "") {
    m = parseOk(kernel(body, params));
    if (m) {
      f = &onlyFunction(*m);
      am = std::make_unique<FunctionAnalysisManager>(*f);
    }
  }
  const CfgInfo& cfg() { return am->get<CfgAnalysis>(); }
  uint32_t node(std::string_view name) {
    for (const BasicBlock* b : f->blocks())
      if (b->name() == name) {
        int32_t n = cfg().index(b);
        if (n < 0) throw std::runtime_error("unreachable block " + std::string(name));
        return static_cast<uint32_t>(n);
      }
    throw std::runtime_error("no block " + std::string(name));
  }
  std::string name(uint32_t n) { return cfg().rpo[n]->name(); }
  const BasicBlock* block(std::string_view name) {
    for (const BasicBlock* b : f->blocks())
      if (b->name() == name) return b;
    return nullptr;
  }
  RegId reg(std::string_view name) {
    for (RegId r = 0; r < f->regs().size(); ++r)
      if (f->regName(r) == name) return r;
    throw std::runtime_error("no register " + std::string(name));
  }
  std::string print(std::string_view analysis) {
    std::string out;
    printAnalysis(analysis, *f, *am, out);
    return out;
  }
};

const char* kDiamond =
    ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n"
    "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra $Lthen;\n"
    "$Lelse:\nmov.u32 %r2, 1;\nbra.uni $Ljoin;\n"
    "$Lthen:\nmov.u32 %r2, 2;\n"
    "$Ljoin:\nadd.s32 %r3, %r2, %r1;\nret;";

}  // namespace

TEST(Analysis, RpoAndDominatorsOfADiamond) {
  Fixture t(kDiamond);
  ASSERT_TRUE(t.f);
  EXPECT_EQ(t.cfg().size(), 4u);
  EXPECT_EQ(t.cfg().rpo[0], t.f->entry());
  const DomTree& dom = t.am->get<DominatorAnalysis>().tree;
  uint32_t entry = 0, th = t.node("$Lthen"), el = t.node("$Lelse"), join = t.node("$Ljoin");
  EXPECT_EQ(dom.idom(th), int32_t(entry));
  EXPECT_EQ(dom.idom(el), int32_t(entry));
  EXPECT_EQ(dom.idom(join), int32_t(entry));
  EXPECT_TRUE(dom.dominates(entry, join));
  EXPECT_FALSE(dom.dominates(th, join));
  EXPECT_TRUE(dom.dominates(join, join));
  const PostDominatorTree& pd = t.am->get<PostDominatorAnalysis>();
  EXPECT_EQ(pd.ipdom(entry), join);
  EXPECT_EQ(pd.ipdom(th), join);
  EXPECT_EQ(pd.ipdom(join), pd.virtualExit);
  const DominanceFrontier& df = t.am->get<DominanceFrontierAnalysis>();
  EXPECT_EQ(df.frontier[th], std::vector<uint32_t>{join});
  EXPECT_EQ(df.frontier[el], std::vector<uint32_t>{join});
  EXPECT_TRUE(df.frontier[entry].empty());
  EXPECT_EQ(t.print("dom"), "dom of function 'k':\n  <bb 0>\n    $Lelse\n    $Lthen\n    $Ljoin\n");
}

TEST(Analysis, PostDominatorsWithTwoExits) {
  Fixture t(".reg .pred %p<2>;\nsetp.eq.u32 %p1, 1, 2;\n@%p1 bra $Lb;\n$La:\nret;\n$Lb:\nexit;");
  ASSERT_TRUE(t.f);
  const PostDominatorTree& pd = t.am->get<PostDominatorAnalysis>();
  EXPECT_EQ(pd.ipdom(0), pd.virtualExit);
  EXPECT_EQ(pd.ipdom(t.node("$La")), pd.virtualExit);
  EXPECT_EQ(pd.ipdom(t.node("$Lb")), pd.virtualExit);
  EXPECT_TRUE(pd.infiniteLoopAnchors.empty());
  EXPECT_EQ(t.print("postdom"), "postdom of function 'k':\n  <exit>\n    <bb 0>\n    $La\n    $Lb\n");
}

TEST(Analysis, PostDominatorsIgnoringBlocks) {
  // The side $Lbad only traps: ignoring edges into it makes $Ljoin the branch's post-dominator.
  Fixture t(".reg .pred %p<3>;\n.reg .b32 %r<2>;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra $Lbad;\n"
            "$Lok:\nadd.s32 %r1, %r1, 1;\nbra.uni $Ljoin;\n$Lbad:\ntrap;\n$Ljoin:\nret;");
  ASSERT_TRUE(t.f);
  const uint32_t bad = t.node("$Lbad"), ok = t.node("$Lok"), join = t.node("$Ljoin");
  const PostDominatorTree& plain = t.am->get<PostDominatorAnalysis>();
  EXPECT_EQ(plain.ipdom(0), plain.virtualExit);
  std::vector<uint8_t> ignored(t.cfg().size(), 0);
  ignored[bad] = 1;
  const PostDominatorTree pd = buildPostDominators(t.cfg(), ignored);
  EXPECT_EQ(pd.ipdom(0), ok);
  EXPECT_EQ(pd.ipdom(ok), join);
  EXPECT_EQ(pd.ipdom(bad), pd.virtualExit);  // the ignored block keeps its own path to the exit
  EXPECT_TRUE(pd.infiniteLoopAnchors.empty());
}

TEST(Analysis, PostDominatorsOfAnInfiniteLoop) {
  Fixture t(".reg .pred %p<2>;\n.reg .b32 %r<2>;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra $Lspin;\nret;\n"
            "$Lspin:\nadd.s32 %r1, %r1, 1;\n$Lspin2:\nbra.uni $Lspin;");
  ASSERT_TRUE(t.f);
  const PostDominatorTree& pd = t.am->get<PostDominatorAnalysis>();
  // No exit is reachable from the loop: one of its blocks is linked to the virtual exit.
  ASSERT_EQ(pd.infiniteLoopAnchors.size(), 1u);
  uint32_t spin = t.node("$Lspin"), spin2 = t.node("$Lspin2");
  EXPECT_EQ(pd.infiniteLoopAnchors[0], spin2);
  EXPECT_EQ(pd.ipdom(spin), spin2);
  EXPECT_EQ(pd.ipdom(spin2), pd.virtualExit);
  EXPECT_EQ(pd.ipdom(0), pd.virtualExit);
  EXPECT_NE(t.print("postdom").find("infinite loop: $Lspin2 is linked to <exit>"), std::string::npos);
  const LoopInfo& li = t.am->get<LoopAnalysis>();
  ASSERT_EQ(li.loops.size(), 1u);
  EXPECT_TRUE(li.loops[0].exits.empty());
}

TEST(Analysis, NestedLoops) {
  Fixture t(".reg .pred %p<3>;\n.reg .b32 %r<3>;\nmov.u32 %r1, 0;\n"
            "$Louter:\nmov.u32 %r2, 0;\n"
            "$Linner:\nadd.s32 %r2, %r2, 1;\nsetp.lt.s32 %p1, %r2, 4;\n@%p1 bra $Linner;\n"
            "$Llatch:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p2, %r1, 8;\n@%p2 bra $Louter;\n"
            "$Ldone:\nret;");
  ASSERT_TRUE(t.f);
  const LoopInfo& li = t.am->get<LoopAnalysis>();
  ASSERT_EQ(li.loops.size(), 2u);
  const Loop& outer = li.loops[0];
  const Loop& inner = li.loops[1];
  EXPECT_EQ(t.name(outer.header), "$Louter");
  EXPECT_EQ(outer.depth, 1u);
  EXPECT_EQ(outer.blocks.size(), 3u);
  EXPECT_EQ(outer.latches, std::vector<uint32_t>{t.node("$Llatch")});
  ASSERT_EQ(outer.exits.size(), 1u);
  EXPECT_EQ(t.name(outer.exits[0].second), "$Ldone");
  EXPECT_EQ(t.name(inner.header), "$Linner");
  EXPECT_EQ(inner.depth, 2u);
  EXPECT_EQ(inner.parent, 0);
  EXPECT_EQ(outer.children, std::vector<uint32_t>{1});
  EXPECT_EQ(li.loopDepth(t.node("$Linner")), 2u);
  EXPECT_EQ(li.loopDepth(t.node("$Llatch")), 1u);
  EXPECT_EQ(li.loopDepth(t.node("$Ldone")), 0u);
  EXPECT_TRUE(li.irreducible.empty());
  EXPECT_EQ(t.print("loops"),
            "loops of function 'k':\n"
            "  loop $Louter depth 1: blocks {$Louter, $Linner, $Llatch} latches {$Llatch} exits {$Llatch -> $Ldone}\n"
            "    loop $Linner depth 2: blocks {$Linner} latches {$Linner} exits {$Linner -> $Llatch}\n");
}

TEST(Analysis, IrreducibleCfg) {
  // Two blocks that branch to each other, each entered from the entry: no natural loop.
  Fixture t(".reg .pred %p<4>;\n.reg .b32 %r<2>;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra $Lb;\n"
            "$La:\nadd.s32 %r1, %r1, 1;\nsetp.lt.u32 %p2, %r1, 10;\n@%p2 bra $Lb;\nbra.uni $Lout;\n"
            "$Lb:\nadd.s32 %r1, %r1, 2;\nsetp.lt.u32 %p3, %r1, 20;\n@%p3 bra $La;\n"
            "$Lout:\nret;");
  ASSERT_TRUE(t.f);
  const LoopInfo& li = t.am->get<LoopAnalysis>();
  EXPECT_TRUE(li.loops.empty());
  ASSERT_EQ(li.irreducible.size(), 1u);
  std::vector<std::string> blocks, entries;
  for (uint32_t b : li.irreducible[0].blocks) blocks.push_back(t.name(b));
  for (uint32_t b : li.irreducible[0].entries) entries.push_back(t.name(b));
  std::sort(blocks.begin(), blocks.end());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(blocks, (std::vector<std::string>{"$La", "$Lb"}));
  EXPECT_EQ(entries, (std::vector<std::string>{"$La", "$Lb"}));
  EXPECT_FALSE(li.irreducibleEdges.empty());
  EXPECT_NE(t.print("loops").find("irreducible region: blocks {"), std::string::npos);
}

TEST(Analysis, LivenessThroughALoop) {
  Fixture t(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, 0;\nmov.u32 %r3, 7;\n"
            "$Lloop:\nadd.s32 %r1, %r1, %r3;\nsetp.lt.s32 %p1, %r1, 100;\n@%p1 bra $Lloop;\n"
            "$Ldone:\nmov.u32 %r2, %r1;\nret;");
  ASSERT_TRUE(t.f);
  const Liveness& lv = t.am->get<LivenessAnalysis>();
  const BasicBlock* loop = t.block("$Lloop");
  const BasicBlock* done = t.block("$Ldone");
  EXPECT_TRUE(lv.liveIn[loop->id()].test(t.reg("%r1")));
  EXPECT_TRUE(lv.liveIn[loop->id()].test(t.reg("%r3")));
  EXPECT_FALSE(lv.liveIn[loop->id()].test(t.reg("%p1")));
  EXPECT_TRUE(lv.liveOut[loop->id()].test(t.reg("%r3")));  // the back edge needs it
  EXPECT_TRUE(lv.liveIn[done->id()].test(t.reg("%r1")));
  EXPECT_FALSE(lv.liveIn[done->id()].test(t.reg("%r3")));
  EXPECT_TRUE(lv.liveIn[t.f->entry()->id()].count() == 0);
  EXPECT_NE(t.print("liveness").find("$Lloop: in {%r1, %r3} out {%r1, %r3}"), std::string::npos) << t.print("liveness");
}

// updateLivenessAfterBlockChange: a block that now reads more carries the growth backwards to
// the same sets a fresh computation gives; one that reads less asks for a fresh computation.
TEST(Analysis, LivenessUpdatedAfterABlockChange) {
  Fixture t(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, 0;\nmov.u32 %r3, 7;\n"
            "$Lloop:\nadd.s32 %r1, %r1, %r3;\nsetp.lt.s32 %p1, %r1, 100;\n@%p1 bra $Lloop;\n"
            "$Ldone:\nmov.u32 %r2, %r1;\nret;");
  ASSERT_TRUE(t.f);
  Liveness lv = t.am->get<LivenessAnalysis>();
  BasicBlock* done = const_cast<BasicBlock*>(t.block("$Ldone"));
  Instruction* mov = done->insts().front();
  ASSERT_TRUE(mov->is(Opcode::Mov));
  // Growth: the mov now reads %p1 as its guard; %p1 is live out of the loop, not into it.
  mov->setGuard(t.reg("%p1"), false);
  ASSERT_TRUE(updateLivenessAfterBlockChange(lv, *done));
  t.am->invalidate(PreservedAnalyses::none());
  const Liveness& fresh = t.am->get<LivenessAnalysis>();
  for (const BasicBlock* b : t.f->blocks()) {
    EXPECT_TRUE(lv.liveIn[b->id()] == fresh.liveIn[b->id()]) << b->name();
    EXPECT_TRUE(lv.liveOut[b->id()] == fresh.liveOut[b->id()]) << b->name();
  }
  EXPECT_TRUE(lv.liveOut[t.block("$Lloop")->id()].test(t.reg("%p1")));
  EXPECT_FALSE(lv.liveIn[t.block("$Lloop")->id()].test(t.reg("%p1")));
  // Shrinking: the mov no longer reads %r1; the update cannot tell, the caller recomputes.
  mov->operand(1) = Operand::imm(5);
  EXPECT_FALSE(updateLivenessAfterBlockChange(lv, *done));
}

TEST(Analysis, GuardedDefinitionsDoNotKill) {
  Fixture t(".reg .pred %p<2>;\n.reg .b32 %r<3>;\nmov.u32 %r1, 1;\nsetp.eq.u32 %p1, %r2, 0;\n"
            "@%p1 mov.u32 %r1, 2;\nadd.s32 %r2, %r1, 1;\nret;");
  ASSERT_TRUE(t.f);
  const ReachingDefs& rd = t.am->get<ReachingDefsAnalysis>();
  const Instruction* add = nullptr;
  for (const Instruction* i : t.f->entry()->insts())
    if (i->is(Opcode::Add)) add = i;
  ASSERT_TRUE(add);
  EXPECT_EQ(rd.reaching(add, t.reg("%r1")).size(), 2u);  // the unguarded and the guarded mov
  EXPECT_FALSE(rd.entryValueReaches(add, t.reg("%r1")));
  // %r2 is read before its only write: only the entry value reaches the setp.
  EXPECT_TRUE(rd.reaching(t.f->entry()->insts()[1], t.reg("%r2")).empty());
  EXPECT_TRUE(rd.entryValueReaches(t.f->entry()->insts()[1], t.reg("%r2")));
}

TEST(Analysis, ReachingDefinitionsAroundALoop) {
  Fixture t(".reg .pred %p<2>;\n.reg .b32 %r<3>;\nmov.u32 %r1, 0;\n"
            "$Lloop:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p1, %r1, 10;\n@%p1 bra $Lloop;\n"
            "$Ldone:\nmov.u32 %r2, %r1;\nret;");
  ASSERT_TRUE(t.f);
  const ReachingDefs& rd = t.am->get<ReachingDefsAnalysis>();
  const Instruction* add = t.block("$Lloop")->insts()[0];
  const Instruction* mov = t.block("$Ldone")->insts()[0];
  EXPECT_EQ(rd.reaching(add, t.reg("%r1")).size(), 2u);   // the initial mov and the add itself
  EXPECT_FALSE(rd.entryValueReaches(add, t.reg("%r1")));
  ASSERT_EQ(rd.reaching(mov, t.reg("%r1")).size(), 1u);   // only the add
  EXPECT_EQ(rd.defs()[rd.reaching(mov, t.reg("%r1"))[0]].inst, add);
  uint32_t addDef = rd.reaching(mov, t.reg("%r1"))[0];
  EXPECT_EQ(rd.usesOf(addDef).size(), 3u);  // the add, the setp, the mov
}

TEST(Analysis, MemorySpaces) {
  std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n.global .align 4 .u32 gvar;\n"
      ".visible .entry k(.param .u64 k_param_0)\n{\n"
      ".local .align 4 .b8 __local_depot0[16];\n.shared .align 4 .b8 sbuf[64];\n"
      ".reg .b64 %rd<12>;\n.reg .b32 %r<4>;\n"
      "ld.param.u64 %rd1, [k_param_0];\n"
      "mul.wide.u32 %rd2, %r1, 4;\n"
      "add.s64 %rd3, %rd1, %rd2;\n"
      "ld.u32 %r2, [%rd3];\n"                    // kernel pointer + offset: global
      "mov.u64 %rd4, sbuf;\n"
      "cvta.shared.u64 %rd5, %rd4;\n"
      "st.u32 [%rd5+8], %r2;\n"                  // generic address of shared memory
      "mov.u64 %rd6, __local_depot0;\n"
      "cvta.local.u64 %rd7, %rd6;\n"
      "ld.u32 %r3, [%rd7];\n"                    // local
      "ld.global.u64 %rd8, [%rd3];\n"
      "st.u32 [%rd8], %r3;\n"                    // a pointer loaded from memory: unknown
      "ld.shared.u32 %r3, [sbuf+4];\n"           // explicit
      "atom.global.add.u32 %r3, [%rd3], 1;\n"
      "ret;\n}\n";
  auto m = parseOk(text);
  ASSERT_TRUE(m);
  Function& f = onlyFunction(*m);
  FunctionAnalysisManager am(f);
  const MemorySpaceInfo& ms = am.get<MemorySpaceAnalysis>();
  ASSERT_EQ(ms.accesses.size(), 8u);
  EXPECT_EQ(ms.accesses[0].space, StateSpace::Param);  // ld.param
  EXPECT_EQ(ms.accesses[1].space, StateSpace::Global);
  EXPECT_EQ(ms.accesses[1].how, "traced: kernel parameter k_param_0");
  EXPECT_TRUE(ms.accesses[1].reads);
  EXPECT_EQ(ms.accesses[2].space, StateSpace::Shared);
  EXPECT_TRUE(ms.accesses[2].writes);
  EXPECT_EQ(ms.accesses[3].space, StateSpace::Local);
  EXPECT_EQ(ms.accesses[4].space, StateSpace::Global);  // ld.global is explicit
  EXPECT_EQ(ms.accesses[5].space, StateSpace::Generic);
  EXPECT_EQ(ms.accesses[6].space, StateSpace::Shared);
  EXPECT_TRUE(ms.accesses[6].explicitSpace);
  EXPECT_TRUE(ms.accesses[7].atomic);
  std::string out;
  printAnalysis("memspace", f, am, out);
  EXPECT_NE(out.find("st.u32 \t[%rd8], %r3 -> generic, could be shared or global (address loaded from memory by ld)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("st.u32 \t[%rd5+8], %r2 -> shared (traced: cvta.shared of %rd4)"), std::string::npos) << out;
}

TEST(Analysis, UniformityOfDivergentAndUniformBranches) {
  Fixture t(".reg .pred %p<4>;\n.reg .b32 %r<8>;\n"
            "mov.u32 %r1, %tid.x;\nmov.u32 %r4, %ctaid.x;\n"
            "setp.eq.u32 %p2, %r4, 0;\n@%p2 bra.uni $Luni;\n"
            "$Lu1:\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra.uni $Lthen;\n"
            "$Lelse:\nmov.u32 %r2, 1;\nbra.uni $Ljoin;\n"
            "$Lthen:\nmov.u32 %r2, 2;\n"
            "$Ljoin:\nadd.s32 %r3, %r2, 1;\nvote.sync.ballot.b32 %r5, %p1, -1;\n"
            "$Luni:\nret;");
  ASSERT_TRUE(t.f);
  const UniformityInfo& u = t.am->get<UniformityAnalysis>();
  EXPECT_FALSE(u.isDivergentBranch(t.f->entry()));     // on %ctaid.x
  EXPECT_TRUE(u.isDivergentBranch(t.block("$Lu1")));   // on %tid.x
  const BitVector& ever = u.everDivergent();
  EXPECT_TRUE(ever.test(t.reg("%r1")));
  EXPECT_FALSE(ever.test(t.reg("%r4")));
  // %r2 is a constant on each side, but which constant depends on the lane: sync dependence.
  EXPECT_TRUE(u.divergentIn(t.block("$Ljoin")).test(t.reg("%r2")));
  EXPECT_FALSE(u.divergentIn(t.block("$Lthen")).test(t.reg("%r2")));
  EXPECT_TRUE(ever.test(t.reg("%r3")));
  EXPECT_FALSE(ever.test(t.reg("%r5")));  // a ballot is the same for every lane
  std::string out = t.print("uniformity");
  EXPECT_NE(out.find("<bb 0>: uniform branch (line 11: @%p2 bra.uni \t$Luni); the .uni hint is confirmed"), std::string::npos) << out;
  EXPECT_NE(out.find("$Lu1: divergent branch (line 14: @%p1 bra.uni \t$Lthen); the .uni hint is contradicted"),
            std::string::npos)
      << out;
}

TEST(Analysis, TemporalDivergenceAfterALoopWithADivergentExit) {
  // Lanes leave the loop in different iterations: %r2 is uniform inside the loop (all lanes
  // still in it agree) but divergent after it.
  Fixture t(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, 0;\n"
            "$Lloop:\nadd.s32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, %r1;\n@%p1 bra $Lloop;\n"
            "$Lafter:\nmov.u32 %r3, %r2;\nret;");
  ASSERT_TRUE(t.f);
  const UniformityInfo& u = t.am->get<UniformityAnalysis>();
  EXPECT_TRUE(u.isDivergentBranch(t.block("$Lloop")));
  EXPECT_FALSE(u.divergentIn(t.block("$Lloop")).test(t.reg("%r2")));
  EXPECT_TRUE(u.divergentIn(t.block("$Lafter")).test(t.reg("%r2")));
  const Instruction* mov = t.block("$Lafter")->insts()[0];
  EXPECT_TRUE(u.isDivergentDef(mov));
}

TEST(Analysis, UniformityOfLoads) {
  std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n.const .align 4 .u32 table[4];\n"
      ".visible .entry k(.param .u32 k_param_0)\n{\n.local .align 4 .b8 depot[8];\n"
      ".reg .b32 %r<6>;\n.reg .b64 %rd<2>;\n"
      "ld.param.u32 %r1, [k_param_0];\n"
      "ld.const.u32 %r2, [table+4];\n"
      "ld.local.u32 %r3, [depot];\n"
      "mov.u64 %rd1, table;\n"
      "ld.global.u32 %r4, [%rd1];\n"
      "ret;\n}\n";
  auto m = parseOk(text);
  ASSERT_TRUE(m);
  Function& f = onlyFunction(*m);
  FunctionAnalysisManager am(f);
  const UniformityInfo& u = am.get<UniformityAnalysis>();
  auto insts = f.entry()->insts();
  EXPECT_FALSE(u.isDivergentDef(insts[0]));  // kernel parameter
  EXPECT_FALSE(u.isDivergentDef(insts[1]));  // .const at a uniform address
  EXPECT_TRUE(u.isDivergentDef(insts[2]));   // .local: per thread
  EXPECT_TRUE(u.isDivergentDef(insts[4]));   // global memory: not proven uniform
}

TEST(Analysis, ManagerComputesLazilyAndInvalidates) {
  Fixture t(kDiamond);
  ASSERT_TRUE(t.f);
  EXPECT_EQ(t.am->computedCount(), 0u);
  t.am->get<DominatorAnalysis>();
  EXPECT_EQ(t.am->computedCount(), 2u);  // the CFG and the dominators
  t.am->get<DominatorAnalysis>();
  EXPECT_EQ(t.am->computedCount(), 2u);
  EXPECT_TRUE(t.am->cached<CfgAnalysis>());
  t.am->invalidateAll();
  EXPECT_FALSE(t.am->cached<CfgAnalysis>());
  t.am->get<LoopAnalysis>();
  EXPECT_EQ(t.am->computedCount(), 5u);
}

TEST(Analysis, InvalidationKeepsWhatIsPreserved) {
  Fixture t(kDiamond);
  ASSERT_TRUE(t.f);
  t.am->get<LoopAnalysis>();
  t.am->get<LivenessAnalysis>();
  EXPECT_EQ(t.am->cachedNames(), (std::vector<std::string_view>{"cfg", "dom", "liveness", "loops"}));
  t.am->invalidate(PreservedAnalyses::cfg());  // the analyses of the edges alone stay
  EXPECT_EQ(t.am->cachedNames(), (std::vector<std::string_view>{"cfg", "dom", "loops"}));
  t.am->invalidate(PreservedAnalyses::none().preserve<DominatorAnalysis>());
  EXPECT_EQ(t.am->cachedNames(), (std::vector<std::string_view>{"dom"}));
  t.am->invalidate(PreservedAnalyses::all());
  EXPECT_EQ(t.am->cachedNames(), (std::vector<std::string_view>{"dom"}));
  t.am->get<CfgAnalysis>();
  EXPECT_EQ(t.am->runs().at("cfg"), 2u);  // computed again after the second invalidation
  EXPECT_EQ(t.am->runs().at("dom"), 1u);
  EXPECT_TRUE(staleAnalyses(*t.f, *t.am).empty());
}

TEST(Analysis, StaleResultsAreFound) {
  Fixture t(kDiamond);
  ASSERT_TRUE(t.f);
  t.am->get<DominatorAnalysis>();
  // Make the conditional branch of the entry unconditional: the else side loses its edge.
  for (BasicBlock* b : t.f->blocks())
    if (Instruction* term = b->terminator(); term && term->hasGuard()) {
      term->clearGuard();
      break;
    }
  buildCfg(*t.f);
  EXPECT_EQ(staleAnalyses(*t.f, *t.am), (std::vector<std::string>{"cfg", "dom"}));
}

TEST(Analysis, DeepCfgsDoNotExhaustTheStack) {
  // 20,000 blocks in a chain, each with a side exit: deep DFS trees for every analysis.
  std::string body = ".reg .pred %p<2>;\n.reg .b32 %r<3>;\nmov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n";
  for (int i = 0; i < 20000; ++i) body += "$L" + std::to_string(i) + ":\nadd.s32 %r2, %r2, 1;\n@%p1 bra $Lend;\n";
  body += "$Lend:\nret;";
  Fixture t(body);
  ASSERT_TRUE(t.f);
  EXPECT_EQ(t.cfg().size(), 20002u);
  const DomTree& dom = t.am->get<DominatorAnalysis>().tree;
  EXPECT_EQ(dom.depth(t.node("$L19999")), 20000u);
  const PostDominatorTree& pd = t.am->get<PostDominatorAnalysis>();
  EXPECT_EQ(pd.ipdom(t.node("$L0")), t.node("$Lend"));
  EXPECT_TRUE(t.am->get<LoopAnalysis>().loops.empty());
  EXPECT_TRUE(t.am->get<UniformityAnalysis>().isDivergentBranch(t.block("$L5")));
  EXPECT_TRUE(t.am->get<LivenessAnalysis>().liveIn[t.block("$L7")->id()].test(t.reg("%r2")));
}
