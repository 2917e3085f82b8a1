#include <cstring>

#include "TestUtil.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

// The first non-pseudo instruction of the function.
const Instruction& firstInst(Function& f) {
  for (BasicBlock* b : f.blocks())
    for (Instruction* i : b->insts())
      if (!i->info().isPseudo()) return *i;
  throw std::runtime_error("no instruction");
}

std::vector<const Instruction*> insts(Function& f) {
  std::vector<const Instruction*> out;
  for (BasicBlock* b : f.blocks())
    for (Instruction* i : b->insts())
      if (!i->info().isPseudo()) out.push_back(i);
  return out;
}

}  // namespace

TEST(Parser, ModuleHeader) {
  auto m = parseOk(".version 8.7\n.target sm_90a, debug\n.address_size 64\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->versionMajor, 8u);
  EXPECT_EQ(m->versionMinor, 7u);
  ASSERT_EQ(m->targets.size(), 2u);
  EXPECT_EQ(m->str(m->targets[0]), "sm_90a");
  EXPECT_EQ(m->str(m->targets[1]), "debug");
  EXPECT_EQ(m->addressSize, 64u);
}

TEST(Parser, RegisterRangesAndScalars) {
  auto m = parseOk(kernel(".reg .pred %p<3>;\n.reg .b32 %r<4>, %q;\n.reg .f64 %fd<2>;\nadd.s32 %r3, %r1, %q;\n"));
  Function& f = onlyFunction(*m);
  // 3 + 4 + 1 + 2 registers
  EXPECT_EQ(f.regs().size(), 10u);
  const Instruction& add = firstInst(f);
  EXPECT_EQ(add.opcode(), Opcode::Add);
  EXPECT_EQ(add.type(), ScalarType::S32);
  ASSERT_EQ(add.numOperands(), 3u);
  EXPECT_EQ(f.regName(add.operand(0).id), "%r3");
  EXPECT_EQ(f.reg(add.operand(0).id).type, ScalarType::B32);
  EXPECT_EQ(f.regName(add.operand(2).id), "%q");
}

TEST(Parser, ModifiersAreTypedAndKeptInOrder) {
  auto m = parseOk(kernel(".reg .f32 %f<3>;\n.reg .pred %p<2>;\n.reg .b32 %r<2>;\n"
                          "setp.ltu.and.f32 %p1, %f1, %f2, %p0;\n"
                          "cvt.rzi.s32.f32 %r1, %f1;\n"
                          "add.rn.ftz.sat.f32 %f1, %f1, %f2;\n"));
  auto is = insts(onlyFunction(*m));
  ASSERT_EQ(is.size(), 3u);
  EXPECT_EQ(is[0]->cmp(), CmpOp::Ltu);
  EXPECT_TRUE(is[0]->has(Mod::And));
  EXPECT_EQ(is[0]->type(), ScalarType::F32);
  EXPECT_EQ(is[1]->rounding(), Rounding::Rzi);
  EXPECT_EQ(is[1]->type(0), ScalarType::S32);
  EXPECT_EQ(is[1]->type(1), ScalarType::F32);
  ASSERT_EQ(is[2]->mods().size(), 4u);
  EXPECT_EQ(is[2]->mods()[0], Mod::R_Rn);
  EXPECT_EQ(is[2]->mods()[1], Mod::Ftz);
  EXPECT_EQ(is[2]->mods()[2], Mod::Sat);
}

TEST(Parser, LongestOpcodeMatchAndQualifiedModifiers) {
  auto m = parseOk(kernel(".reg .b64 %rd<3>;\n.reg .b32 %r<3>;\n"
                          "bar.warp.sync -1;\n"
                          "mbarrier.arrive.shared::cta.b64 %rd1, [%rd2];\n"
                          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], %r1, [%rd2];\n"
                          "ld.global.nc.L1::no_allocate.v2.u32 {%r1, %r2}, [%rd1];\n"));
  Module& mod = *m;
  auto is = insts(onlyFunction(mod));
  ASSERT_EQ(is.size(), 4u);
  EXPECT_EQ(is[0]->opcode(), Opcode::BarWarpSync);
  EXPECT_EQ(is[1]->opcode(), Opcode::Mbarrier);
  EXPECT_EQ(is[1]->space(), StateSpace::SharedCta);
  EXPECT_EQ(is[2]->opcode(), Opcode::Cp);
  EXPECT_EQ(modName(is[2]->mods().back(), mod.strings()), ".mbarrier::complete_tx::bytes");
  EXPECT_EQ(is[3]->opcode(), Opcode::Ld);
  EXPECT_EQ(is[3]->space(), StateSpace::Global);
  EXPECT_TRUE(is[3]->has(Mod::Nc));
  EXPECT_EQ(is[3]->vectorWidth(), 2u);
  EXPECT_FALSE(isKnownMod(is[3]->mods()[2]));  // .L1::no_allocate is kept verbatim
  EXPECT_EQ(is[3]->operand(0).kind, OperandKind::Vector);
  EXPECT_EQ(is[3]->elements(is[3]->operand(0)).size(), 2u);
}

TEST(Parser, UnknownOpcodeIsKeptWithAWarning) {
  DiagEngine diags;
  auto m = parseModule(kernel(".reg .b32 %r<2>;\nfrobnicate.sync.b32 %r1, %r0;\n"), "t.ptx", diags);
  ASSERT_TRUE(m);
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].severity, Severity::Warning);
  const Instruction& i = firstInst(onlyFunction(*m));
  EXPECT_EQ(i.opcode(), Opcode::Unknown);
  EXPECT_TRUE(i.info().hasSideEffects());
  EXPECT_EQ(printInstruction(onlyFunction(*m), i), "frobnicate.sync.b32 \t%r1, %r0");
}

TEST(Parser, OperandForms) {
  auto m = parseOk(kernel(".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<3>;\n.reg .f32 %f<2>;\n"
                          "ld.param.u64 %rd1, [k_param_0+8];\n"
                          "ld.global.u32 %r1, [%rd1+-4];\n"
                          "ld.global.u32 %r1, [%rd1];\n"
                          "mov.u32 %r2, 0x7FFFFFFF;\n"
                          "mov.u32 %r3, -1;\n"
                          "mov.f32 %f1, 0f3F800000;\n"
                          "shfl.sync.down.b32 %r4|%p1, %r2, 1, 31, -1;\n"
                          "setp.lt.and.s32 %p2, %r1, %r2, !%p1;\n"
                          "mov.u32 %r5, %tid.x;\n"
                          "mov.u32 %r6, %envreg3;\n"
                          "atom.global.add.u32 _, [%rd1], 1;\n",
                          ".param .u64 k_param_0"));
  Function& f = onlyFunction(*m);
  auto is = insts(f);
  ASSERT_EQ(is.size(), 11u);
  const Operand& a0 = is[0]->operand(1);
  EXPECT_EQ(a0.kind, OperandKind::Address);
  EXPECT_EQ(a0.addressBase(), AddressBase::Symbol);
  EXPECT_EQ(a0.value, 8);
  const Operand& a1 = is[1]->operand(1);
  EXPECT_EQ(a1.addressBase(), AddressBase::Reg);
  EXPECT_EQ(a1.value, -4);
  EXPECT_EQ(is[3]->operand(1).value, 0x7FFFFFFF);
  EXPECT_TRUE(is[3]->operand(1).flags & OperandFlag::Hex);
  EXPECT_EQ(is[4]->operand(1).value, -1);
  EXPECT_EQ(is[5]->operand(1).kind, OperandKind::FImm);
  EXPECT_EQ(is[5]->operand(1).value, 0x3F800000);
  EXPECT_EQ(is[6]->operand(0).kind, OperandKind::Pair);
  EXPECT_TRUE(is[7]->operand(3).negated());
  EXPECT_EQ(is[8]->operand(1).kind, OperandKind::Special);
  EXPECT_EQ(static_cast<SpecialReg>(is[8]->operand(1).id), SpecialReg::Tid);
  EXPECT_EQ(is[8]->operand(1).component(), Component::X);
  EXPECT_EQ(static_cast<SpecialReg>(is[9]->operand(1).id), SpecialReg::Envreg);
  EXPECT_EQ(is[9]->operand(1).value, 3);
  EXPECT_EQ(is[10]->operand(0).kind, OperandKind::Sink);
}

TEST(Parser, DefsAndUsesFollowTheOpcodeTable) {
  auto m = parseOk(kernel(".reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n"
                          "@%p1 st.global.u32 [%rd1], %r1;\n"
                          "shfl.sync.idx.b32 %r2|%p0, %r1, 0, 31, -1;\n"
                          "bar.red.popc.u32 %r3, 0, %p1;\n"
                          "bar.sync 0;\n"));
  Function& f = onlyFunction(*m);
  auto is = insts(f);
  auto collect = [&](const Instruction* i, bool defs) {
    std::vector<std::string> names;
    if (defs)
      i->forEachDefReg([&](RegId r) { names.push_back(f.regName(r)); });
    else
      i->forEachUseReg([&](RegId r) { names.push_back(f.regName(r)); });
    return names;
  };
  EXPECT_TRUE(collect(is[0], true).empty());
  EXPECT_EQ(collect(is[0], false), (std::vector<std::string>{"%p1", "%rd1", "%r1"}));
  EXPECT_EQ(collect(is[1], true), (std::vector<std::string>{"%r2", "%p0"}));
  EXPECT_EQ(collect(is[1], false), (std::vector<std::string>{"%r1"}));
  EXPECT_EQ(collect(is[2], true), (std::vector<std::string>{"%r3"}));
  EXPECT_EQ(collect(is[3], true).size(), 0u);
  EXPECT_TRUE(is[3]->info().is(OpFlag::CtaBarrier));
}

TEST(Parser, NestedScopesShadowRegisters) {
  auto m = parseOk(kernel(".reg .pred %p<2>;\n.reg .b32 %r<3>;\n"
                          "setp.ne.s32 %p1, %r1, 0;\n"
                          "{\n.reg .pred %p1;\nsetp.ne.u32 %p1, %r2, 0;\nbar.red.popc.u32 %r1, 0, %p1;\n}\n"
                          "@%p1 bra $L;\n$L:\nret;\n"));
  Function& f = onlyFunction(*m);
  auto is = insts(f);
  ASSERT_EQ(is.size(), 5u);
  RegId outer = is[0]->operand(0).id;
  RegId inner = is[1]->operand(0).id;
  EXPECT_NE(outer, inner);
  EXPECT_EQ(f.regName(outer), f.regName(inner));
  EXPECT_EQ(is[2]->operand(2).id, inner);
  EXPECT_EQ(is[3]->guard(), outer);
  EXPECT_EQ(f.reg(inner).scope, 1u);
}

TEST(Parser, InlineAsmStyleNamesWithoutPercent) {
  auto m = parseOk(kernel(".reg .b32 %r<3>;\n{\n.reg .pred p;\nsetp.ne.b32 p, %r1, 0;\n@p add.s32 %r2, %r2, 1;\n@!p add.s32 %r2, %r2, 2;\n}\n"));
  auto is = insts(onlyFunction(*m));
  ASSERT_EQ(is.size(), 3u);
  EXPECT_EQ(is[1]->guard(), is[0]->operand(0).id);
  EXPECT_TRUE(is[2]->guardNegated());
}

TEST(Parser, CallSequences) {
  const char* text =
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n"
      ".visible .entry k()\n{\n.reg .b64 %rd<3>;\n.reg .b32 %r<2>;\n"
      "{ // callseq 0, 0\n.reg .b32 temp_param_reg;\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\n"
      ".param .b64 param1;\nst.param.b64 [param1+0], %rd2;\n.param .b32 retval0;\n"
      "call.uni (retval0), \nvprintf, \n(\nparam0, \nparam1\n);\nld.param.b32 %r1, [retval0+0];\n}\n"
      "{\n.param .b64 param0;\nprototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
      ".param .b32 retval0;\ncall (retval0), %rd1, (param0), prototype_0;\n}\nret;\n}\n";
  auto m = parseOk(text);
  ASSERT_TRUE(m);
  Function* vprintf = m->findFunction("vprintf");
  ASSERT_TRUE(vprintf);
  EXPECT_FALSE(vprintf->hasBody);
  EXPECT_EQ(vprintf->params.size(), 2u);
  EXPECT_EQ(vprintf->returnParams.size(), 1u);
  Function& k = *m->findFunction("k");
  auto is = insts(k);
  const Instruction* call = nullptr;
  for (auto* i : is)
    if (i->is(Opcode::Call)) {
      call = i;
      break;
    }
  ASSERT_TRUE(call);
  EXPECT_TRUE(call->has(Mod::Uni));
  ASSERT_EQ(call->numOperands(), 3u);
  EXPECT_EQ(call->operand(0).kind, OperandKind::List);
  EXPECT_EQ(call->operand(1).kind, OperandKind::Symbol);
  EXPECT_EQ(call->elements(call->operand(2)).size(), 2u);
  // The nested .param declarations are statements of the body, in place.
  unsigned paramDecls = 0;
  for (const Decl& d : k.decls())
    if (d.kind == Decl::Kind::Var && d.var.space == StateSpace::Param) ++paramDecls;
  EXPECT_EQ(paramDecls, 5u);
}

TEST(Parser, ParametersAndVariables) {
  const char* text =
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".extern .shared .align 16 .b8 smem[];\n"
      ".global .align 1 .b8 $str[6] = {104, 101, 108, 108, 111, 0};\n"
      ".global .align 8 .u64 ptrs[2] = {generic($str), $str+2};\n"
      ".const .align 4 .f32 c[2] = {0f3F800000, 0f40000000};\n"
      ".visible .entry k(\n.param .align 8 .b8 k_param_0[16],\n.param .u64 .ptr .global .align 16 k_param_1\n)\n"
      ".maxntid 256, 1, 1\n.minnctapersm 2\n{\n.local .align 8 .b8 __local_depot0[32];\n.reg .b64 %SP;\n.reg .b64 %SPL;\n"
      "mov.u64 %SPL, __local_depot0;\ncvta.local.u64 %SP, %SPL;\nret;\n}\n";
  auto m = parseOk(text);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->globals().size(), 4u);
  const Variable& smem = m->globals()[0];
  EXPECT_EQ(smem.linkage, Linkage::Extern);
  EXPECT_EQ(smem.space, StateSpace::Shared);
  EXPECT_EQ(smem.align, 16u);
  ASSERT_EQ(smem.dims.size(), 1u);
  EXPECT_EQ(smem.dims[0], -1);
  const Variable& str = m->globals()[1];
  EXPECT_EQ(str.init.size(), 8u);  // { 6 values }
  const Variable& ptrs = m->globals()[2];
  EXPECT_EQ(ptrs.init[1].kind, InitItem::Kind::Generic);
  EXPECT_EQ(ptrs.init[2].kind, InitItem::Kind::Symbol);
  EXPECT_EQ(ptrs.init[2].value, 2);
  Function& k = onlyFunction(*m);
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].align, 8u);
  EXPECT_EQ(k.params[0].dims[0], 16);
  EXPECT_TRUE(k.params[1].isPtr);
  EXPECT_EQ(k.params[1].ptrSpace, StateSpace::Global);
  EXPECT_EQ(k.params[1].ptrAlign, 16u);
  ASSERT_EQ(k.directives.size(), 2u);
  EXPECT_EQ(m->str(k.directives[0].name), ".maxntid");
  EXPECT_EQ(m->str(k.directives[0].text), "256, 1, 1");
}

TEST(Parser, HugeInitializerLine) {
  std::string init;
  init.reserve(600000);
  for (int i = 0; i < 125000; ++i) {
    if (i) init += ", ";
    init += std::to_string(i % 256);
  }
  ASSERT_GT(init.size(), 500000u);
  std::string text = ".version 9.0\n.target sm_90\n.address_size 64\n.global .align 1 .b8 big[125000] = {" + init + "};\n";
  auto m = parseOk(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->globals()[0].init.size(), 125002u);
  std::string printed = printModule(*m);
  EXPECT_NE(printed.find(init), std::string::npos);
}

TEST(Parser, DebugSectionsAndLocations) {
  const char* text =
      ".version 9.0\n.target sm_90, debug\n.address_size 64\n"
      ".visible .entry k()\n{\n.loc 1 3 0\n$L__func_begin0:\n.loc 1 4 2\nret;\n"
      ".loc 1 5 3, function_name $L__info_string0, inlined_at 1 9 4\nexit;\n$L__func_end0:\n}\n"
      "\t.file\t1 \"/tmp/a.cu\"\n"
      "\t.section\t.debug_info\n\t{\n.b32 74\n.b8 2\n.b64 $L__func_begin0\n.b32 .debug_loc+133\n.b8 95,95,65\n}\n"
      "\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,0\n}\n";
  auto m = parseOk(text);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->sections().size(), 2u);
  EXPECT_EQ(m->sections()[0].lines.size(), 5u);
  EXPECT_EQ(m->str(m->sections()[0].lines[3]), ".b32 .debug_loc+133");
  EXPECT_EQ(m->str(m->sections()[1].lines[0]), "$L__info_string0:");
  ASSERT_EQ(m->files().size(), 1u);
  EXPECT_EQ(m->str(m->files()[0].path), "/tmp/a.cu");
  Function& k = onlyFunction(*m);
  auto is = insts(k);
  ASSERT_EQ(is.size(), 2u);
  ASSERT_NE(is[0]->debugLoc(), 0u);
  // `.loc 1 3 0` and `.loc 1 4 2` (a label between them) both stand before `ret`.
  auto g0 = k.locGroup(is[0]->debugLoc());
  ASSERT_EQ(g0.size(), 2u);
  EXPECT_EQ(g0[0].line, 3u);
  EXPECT_EQ(g0[1].line, 4u);
  auto g1 = k.locGroup(is[1]->debugLoc());
  ASSERT_EQ(g1.size(), 1u);
  const DebugLoc& inl = g1[0];
  EXPECT_EQ(m->str(inl.extra), "function_name $L__info_string0, inlined_at 1 9 4");
  // The label at the very end is an empty block.
  EXPECT_TRUE(k.blocks().back()->empty());
  EXPECT_EQ(k.blocks().back()->name(), "$L__func_end0");
}

TEST(Parser, BranchTargetsAndPragmas) {
  auto m = parseOk(kernel(".reg .b32 %r<2>;\n"
                          "ts: .branchtargets $L0, $L1, $L2;\n"
                          "brx.idx %r1, ts;\n$L0:\nret;\n$L1:\n.pragma \"nounroll\";\nret;\n$L2:\nexit;\n"));
  Function& f = onlyFunction(*m);
  const BasicBlock* b0 = f.blocks()[0];
  ASSERT_EQ(b0->succs().size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(b0->succs()[k].kind, EdgeKind::Indexed);
    EXPECT_EQ(b0->succs()[k].index, k);
  }
  EXPECT_EQ(b0->succs()[1].to->name(), "$L1");
}

TEST(Parser, ForwardAndScopedLabels) {
  // The same label name in two sibling scopes (inline asm expanded twice) stays distinct.
  auto m = parseOk(kernel(".reg .pred %p<2>;\n"
                          "{\n$Lx:\n@%p1 bra $Lx;\n}\n"
                          "{\n$Lx:\n@%p1 bra $Lx;\n}\n"
                          "bra.uni $Lend;\n$Lend:\nret;\n"));
  Function& f = onlyFunction(*m);
  std::vector<const BasicBlock*> loops;
  for (const BasicBlock* b : f.blocks())
    if (b->hasLabel() && b->name() == "$Lx") loops.push_back(b);
  ASSERT_EQ(loops.size(), 2u);
  for (const BasicBlock* b : loops) {
    ASSERT_FALSE(b->succs().empty());
    EXPECT_EQ(b->succs()[0].to, b);  // each loop branches to its own header
  }
}

TEST(Parser, Errors) {
  EXPECT_EQ(parseError(".target sm_90\n"), "test.ptx:1:1: error: a PTX module must begin with a .version directive");
  // Found by the fuzzer: a second .target used to be merged into the first.
  EXPECT_EQ(parseError(".version 9.0\n.target sm_90\n.target sm_80\n"), "test.ptx:3:1: error: duplicate .target directive");
  EXPECT_EQ(parseError(".version 9.0\n.version 9.0\n"), "test.ptx:2:1: error: duplicate .version directive");
  EXPECT_EQ(parseError(".version 9.0\n.address_size 64\n.address_size 64\n"),
            "test.ptx:3:1: error: duplicate .address_size directive");
  EXPECT_EQ(parseError(kernel("add.s32 %r1, %r2, %r3;")),
            "test.ptx:6:9: error: use of undeclared register '%r1'");
  EXPECT_EQ(parseError(kernel(".reg .b32 %r<2>;\nadd.s32 %r1, %r0")),
            "test.ptx:8:1: error: expected ';' at the end of the instruction, found '}'");
  EXPECT_EQ(parseError(kernel("bra $nowhere;")), "test.ptx:6:1: error: use of undefined label '$nowhere'");
  EXPECT_EQ(parseError(kernel("$a:\n$a:\nret;")), "test.ptx:7:1: error: redefinition of label '$a'");
  EXPECT_EQ(parseError(".version 9.0\n.target sm_90\n.bogus 1\n"),
            "test.ptx:3:1: error: unknown or misplaced directive '.bogus' at module scope");
  EXPECT_EQ(parseError(kernel(".version 9.0")), "test.ptx:6:1: error: unexpected directive '.version' in a function body");
  EXPECT_EQ(parseError(".version 9.0\n.visible .entry k()\n{\nret;\n"),
            "test.ptx:5:1: error: expected '}' to close the function body, found end of file");
  EXPECT_EQ(parseError(kernel(".reg .b32 %r<99999999999>;")), "test.ptx:6:14: error: too many registers in one function (at most 4194304)");
  EXPECT_EQ(parseError(kernel(".reg .b32 %r<2>;\nmov.u32 %r1, 99999999999999999999;")),
            "test.ptx:7:14: error: integer literal does not fit in 64 bits");
}
