#include "IfRegion.h"
#include "TestUtil.h"
#include "ptxopt/ir/Cfg.h"

using namespace ptxopt;
using namespace ptxopt::test;


TEST(Cfg, BlocksSplitAtLabelsAndAfterTerminators) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n.reg .b32 %r<2>;\n"
                          "mov.u32 %r1, 0;\n@%p1 bra $L2;\nadd.s32 %r1, %r1, 1;\n$L2:\nret;\nexit;"));
  Function& f = onlyFunction(*m);
  ASSERT_EQ(f.blocks().size(), 4u);
  // entry: conditional branch -> taken edge to $L2 and fall-through to the next block
  const BasicBlock* entry = f.blocks()[0];
  ASSERT_EQ(entry->succs().size(), 2u);
  EXPECT_EQ(entry->succs()[0].kind, EdgeKind::Taken);
  EXPECT_EQ(entry->succs()[0].to->name(), "$L2");
  EXPECT_EQ(entry->succs()[1].kind, EdgeKind::FallThrough);
  EXPECT_EQ(entry->succs()[1].to, f.blocks()[1]);
  // the fall-through block falls into $L2
  ASSERT_EQ(f.blocks()[1]->succs().size(), 1u);
  EXPECT_EQ(f.blocks()[1]->succs()[0].kind, EdgeKind::FallThrough);
  // ret ends the function: no successors; the unreachable exit block has no predecessors
  EXPECT_TRUE(f.blocks()[2]->succs().empty());
  EXPECT_TRUE(f.blocks()[3]->preds().empty());
  EXPECT_EQ(blockNamed(f, "$L2")->preds().size(), 2u);
}

TEST(Cfg, GuardedReturnExitAndTrapFallThrough) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n@%p1 ret;\n@%p1 exit;\n@!%p1 trap;\nret;"));
  Function& f = onlyFunction(*m);
  ASSERT_EQ(f.blocks().size(), 4u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(f.blocks()[i]->succs().size(), 1u);
    EXPECT_EQ(f.blocks()[i]->succs()[0].kind, EdgeKind::FallThrough);
  }
  EXPECT_TRUE(f.blocks()[3]->succs().empty());
}

TEST(Cfg, CallsFallThroughAndBothEdgesToTheSameBlockAreKept) {
  auto m = parseOk(".version 9.0\n.target sm_90\n.address_size 64\n.func g()\n{\nret;\n}\n"
                   ".visible .entry k()\n{\n.reg .pred %p<2>;\ncall.uni g, ();\n@%p1 bra $L;\n$L:\nret;\n}\n");
  Function& f = *m->findFunction("k");
  ASSERT_EQ(f.blocks().size(), 2u);
  const BasicBlock* entry = f.blocks()[0];
  ASSERT_EQ(entry->succs().size(), 2u);
  EXPECT_EQ(entry->succs()[0].to, entry->succs()[1].to);
  EXPECT_EQ(f.blocks()[1]->preds().size(), 2u);
}

TEST(Cfg, LoopBackEdge) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n.reg .b32 %r<2>;\nmov.u32 %r1, 0;\n$Lloop:\nadd.s32 %r1, %r1, 1;\n"
                          "setp.lt.s32 %p1, %r1, 10;\n@%p1 bra $Lloop;\nret;"));
  Function& f = onlyFunction(*m);
  const BasicBlock* loop = blockNamed(f, "$Lloop");
  ASSERT_TRUE(loop);
  ASSERT_EQ(loop->succs().size(), 2u);
  EXPECT_EQ(loop->succs()[0].to, loop);
  EXPECT_EQ(loop->preds().size(), 2u);
}

TEST(Cfg, RebuildAfterEditingMatchesAFreshParse) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n@%p1 bra $L;\nret;\n$L:\nret;"));
  Function& f = onlyFunction(*m);
  // Remove the guard: the branch becomes unconditional and the fall-through edge disappears.
  f.blocks()[0]->insts().back()->clearGuard();
  buildCfg(f);
  ASSERT_EQ(f.blocks()[0]->succs().size(), 1u);
  EXPECT_EQ(f.blocks()[0]->succs()[0].kind, EdgeKind::Taken);
  EXPECT_TRUE(f.blocks()[1]->preds().empty());
}

// select collapses each converted diamond into its header and brings only the edges around it
// up to date (updateAfterCollapse): the result must be what buildCfg writes, predecessor order
// included (passes walk predecessor lists, and the output must not depend on how the CFG was
// brought up to date). $M has predecessors before the region, in it, and after it.
TEST(Cfg, CollapsedRegionEdgesMatchARebuild) {
  auto m = parseOk(kernel(".reg .pred %p<4>;\n.reg .b32 %r<4>;\n"
                          "@%p2 bra $M;\n"
                          "$H:\n@%p1 bra $T;\nadd.s32 %r1, %r1, 1;\nbra.uni $M;\n"
                          "$T:\nadd.s32 %r1, %r1, 2;\n"
                          "$M:\nadd.s32 %r2, %r1, 3;\n@%p3 bra $X;\nret;\n"
                          "$X:\n@%p2 bra $M;\nret;"));
  Function& f = onlyFunction(*m);
  BasicBlock* h = blockNamed(f, "$H");
  BasicBlock* merge = blockNamed(f, "$M");
  ASSERT_TRUE(h && merge);
  ASSERT_EQ(merge->preds().size(), 4u);
  std::optional<IfRegion> r = findIfRegion(f, h, 4);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->merge, merge);
  std::vector<Instruction*> body(h->insts().begin(), h->insts().end() - 1);  // the header without its branch
  std::unordered_set<const BasicBlock*> removed;
  replaceIfRegion(f, *r, body, removed);
  std::vector<BasicBlock*> gone(r->taken.begin(), r->taken.end());
  gone.insert(gone.end(), r->fall.begin(), r->fall.end());
  updateAfterCollapse(f, h, gone);
  auto edges = [&] {
    std::vector<std::string> out;
    for (const BasicBlock* b : f.blocks()) {
      std::string line = b->name() + " ->";
      for (const Edge& e : b->succs()) line += " " + e.to->name() + "/" + std::to_string(int(e.kind));
      line += " <-";
      for (const BasicBlock* p : b->preds()) line += " " + p->name();
      out.push_back(line);
    }
    return out;
  };
  std::vector<std::string> incremental = edges();
  buildCfg(f);
  EXPECT_EQ(incremental, edges());
  ASSERT_EQ(merge->preds().size(), 3u);
  EXPECT_EQ(merge->preds()[0], f.blocks()[0]);
  EXPECT_EQ(merge->preds()[1], h);
  EXPECT_EQ(merge->preds()[2], blockNamed(f, "$X"));
}

// A fresh register never takes a special register's name (%pm<N>, %envreg<N> up to
// kMaxSpecialRegNumber, which the front end reads as special registers when undeclared).
TEST(Function, FreshNamesAvoidSpecialRegisters) {
  auto m = parseOk(kernel("ret;"));
  Function& f = *m->functions()[0];
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::Pred, "%pm")), "%pm256");
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::B32, "%envreg")), "%envreg256");
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::Pred, "%mask")), "%mask0");
}

// freshName looks only at names that begin with the prefix; a name it must avoid may also come
// from a longer range prefix (%sv1<3> declares %sv10 .. %sv12) or from a name handed out under
// another prefix that this one begins.
TEST(Function, FreshNamesAvoidEveryTakenSpelling) {
  auto m = parseOk(kernel(".reg .b32 %sv1<3>;\n.reg .b32 %sv0;\nret;"));
  Function& f = onlyFunction(*m);
  std::vector<std::string> got;
  for (int k = 0; k < 11; ++k) got.push_back(f.regName(f.addRegister(ScalarType::B32, "%sv")));
  EXPECT_EQ(got, (std::vector<std::string>{"%sv1", "%sv2", "%sv3", "%sv4", "%sv5", "%sv6", "%sv7", "%sv8", "%sv9",
                                            "%sv13", "%sv14"}));
  EXPECT_EQ(f.freshName("%sv1"), "%sv15");  // %sv10 .. %sv14 are taken (the range, then handed out)
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::B32, "%sv")), "%sv16");  // %sv15 went to the prefix %sv1
}

// The names of branch tables are read when freshName is first called: a table a pass removes
// afterwards (switch-opt lowering a brx.idx again) keeps its name taken.
TEST(Function, FreshNamesAvoidARemovedTablesName) {
  auto m = parseOk(kernel(".reg .b32 %r<2>;\nmov.u32 %r1, 0;\n$Lswt0: .branchtargets $L0, $L1;\n"
                          "brx.idx %r1, $Lswt0;\n$L0:\nret;\n$L1:\nret;"));
  Function& f = onlyFunction(*m);
  EXPECT_EQ(f.freshName("$Lx"), "$Lx0");
  for (BasicBlock* b : f.blocks())
    std::erase_if(b->insts(), [](const Instruction* i) { return i->is(Opcode::BranchTargets); });
  EXPECT_EQ(f.freshName("$Lswt"), "$Lswt1");
}
