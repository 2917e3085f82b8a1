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

// A fresh register never takes a special register's name (%pm<N>, %envreg<N> up to
// kMaxSpecialRegNumber, which the front end reads as special registers when undeclared).
TEST(Function, FreshNamesAvoidSpecialRegisters) {
  auto m = parseOk(kernel("ret;"));
  Function& f = *m->functions()[0];
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::Pred, "%pm")), "%pm256");
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::B32, "%envreg")), "%envreg256");
  EXPECT_EQ(f.regName(f.addRegister(ScalarType::Pred, "%mask")), "%mask0");
}
