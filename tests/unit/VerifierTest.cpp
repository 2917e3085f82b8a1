#include <algorithm>

#include "TestUtil.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Verifier.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

std::string verifyErrors(const Function& f) {
  DiagEngine diags;
  verifyFunction(f, diags);
  return diags.str();
}

}  // namespace

TEST(Verifier, AcceptsWellFormedFunctions) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n.reg .b32 %r<3>;\n.reg .f32 %f<2>;\n.reg .b64 %rd<3>;\n"
                          "setp.lt.s32 %p1, %r1, %r2;\nselp.b32 %r1, 1, 0, %p1;\nadd.f32 %f1, %f1, %f0;\n"
                          "mul.wide.s32 %rd1, %r1, 4;\nmov.b32 %r1, %f1;\nshl.b64 %rd2, %rd1, %r2;\n@%p1 bra $L;\n$L:\nret;"));
  EXPECT_EQ(verifyErrors(onlyFunction(*m)), "");
}

TEST(Verifier, GuardMustBePredicate) {
  auto m = parseOk(kernel(".reg .b32 %r<2>;\n@%r1 ret;"));
  EXPECT_NE(verifyErrors(onlyFunction(*m)).find("test.ptx:7:1: error: in function 'k': guard '%r1' is not a .pred register"),
            std::string::npos);
}

TEST(Verifier, RegisterTypesMustFit) {
  // ptxas rejects each of these with "Arguments mismatch".
  auto m = parseOk(kernel(".reg .u32 %u<2>;\n.reg .f32 %f<2>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n"
                          "add.f32 %f1, %u1, %f0;\nadd.u32 %u1, %f1, %u0;\nadd.u32 %u1, %rd1, %u0;\n"
                          "setp.eq.s32 %u1, %u0, %u1;\nselp.b32 %u1, %u0, %u1, %u0;"));
  std::string errs = verifyErrors(onlyFunction(*m));
  EXPECT_NE(errs.find("10:1: error: in function 'k': register '%u1' of type .u32 does not fit operand 2 (a) of 'add', of type .f32"),
            std::string::npos)
      << errs;
  EXPECT_NE(errs.find("11:1: error: in function 'k': register '%f1' of type .f32 does not fit operand 2 (a) of 'add', of type .u32"),
            std::string::npos)
      << errs;
  EXPECT_NE(errs.find("12:1: error: in function 'k': register '%rd1' of type .b64 does not fit operand 2 (a) of 'add'"), std::string::npos)
      << errs;
  EXPECT_NE(errs.find("13:1: error: in function 'k': register '%u1' of type .u32 does not fit operand 1 (p) of 'setp', of type .pred"),
            std::string::npos)
      << errs;
  EXPECT_NE(errs.find("14:1: error: in function 'k': register '%u0' of type .u32 does not fit operand 4 (c) of 'selp', of type .pred"),
            std::string::npos)
      << errs;
}

TEST(Verifier, StaleEdgesAreReported) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n@%p1 bra $L;\nret;\n$L:\nret;"));
  Function& f = onlyFunction(*m);
  f.blocks()[0]->insts().back()->clearGuard();  // edit without rebuilding the CFG
  std::string errs = verifyErrors(f);
  EXPECT_NE(errs.find("successor edges of block <bb 0> do not match its terminator and layout"), std::string::npos) << errs;
  buildCfg(f);
  EXPECT_EQ(verifyErrors(f), "");
}

TEST(Verifier, InstructionAfterTerminatorAndRemovedLabelTarget) {
  auto m = parseOk(kernel(".reg .b32 %r<2>;\nbra.uni $L;\n$L:\nmov.u32 %r1, 1;\nret;"));
  Function& f = onlyFunction(*m);
  // Move `mov` behind the bra of the entry block.
  BasicBlock* entry = f.blocks()[0];
  BasicBlock* target = f.blocks()[1];
  Instruction* mov = target->insts().front();
  target->insts().erase(target->insts().begin());
  entry->append(mov);
  std::string errs = verifyErrors(f);
  EXPECT_NE(errs.find("instruction after the terminator of block <bb 0>"), std::string::npos) << errs;
  // Drop the labelled block from the layout: the branch now names a block that is gone.
  f.blocks().erase(f.blocks().begin() + 1);
  buildCfg(f);
  errs = verifyErrors(f);
  EXPECT_NE(errs.find("label '$L' names a block that is no longer in the function"), std::string::npos) << errs;
}

TEST(Verifier, UnbalancedScopesAndUnknownSymbols) {
  auto m = parseOk(kernel(".reg .b32 %r<2>;\n{\nmov.u32 %r1, 1;\n}\nld.global.u32 %r1, [nowhere];\nret;"));
  Function& f = onlyFunction(*m);
  std::string errs = verifyErrors(f);
  EXPECT_NE(errs.find("unknown symbol 'nowhere' in an address"), std::string::npos) << errs;
  // Remove the closing brace.
  for (BasicBlock* b : f.blocks())
    for (size_t k = 0; k < b->insts().size(); ++k)
      if (b->insts()[k]->is(Opcode::ScopeEnd)) {
        b->insts().erase(b->insts().begin() + static_cast<long>(k));
        break;
      }
  errs = verifyErrors(f);
  EXPECT_NE(errs.find("a '{' scope is never closed"), std::string::npos) << errs;
}

TEST(Verifier, ShadowedRegisterNames) {
  // `add` reads the outer %r1; moved inside the braces, where %r1 names the inner register, it
  // would print a name that means the other one (the scope reviews of 2026-11-26).
  auto m = parseOk(kernel(".reg .b32 %r<3>;\nmov.u32 %r1, 5;\n{\n.reg .b32 %r<3>;\nmov.u32 %r1, 7;\n}\nadd.s32 %r2, %r1, 1;\nret;"));
  Function& f = onlyFunction(*m);
  EXPECT_EQ(verifyErrors(f), "");
  BasicBlock* b = f.blocks().front();
  auto& v = b->insts();
  auto add = std::find_if(v.begin(), v.end(), [](Instruction* i) { return i->is(Opcode::Add); });
  auto close = std::find_if(v.begin(), v.end(), [](Instruction* i) { return i->is(Opcode::ScopeEnd); });
  ASSERT_TRUE(add != v.end() && close != v.end());
  Instruction* moved = *add;
  v.erase(add);
  v.insert(std::find(v.begin(), v.end(), *close), moved);
  std::string errs = verifyErrors(f);
  EXPECT_NE(errs.find("register '%r1' is shadowed here by the register of that name an inner scope declares"), std::string::npos)
      << errs;
}

TEST(Verifier, ContextNamesThePass) {
  auto m = parseOk(kernel(".reg .b32 %r<2>;\n@%r1 ret;"));
  DiagEngine diags;
  verifyFunction(onlyFunction(*m), diags, "after pass branch-opt");
  EXPECT_NE(diags.str().find("error: after pass branch-opt: in function 'k':"), std::string::npos) << diags.str();
}
