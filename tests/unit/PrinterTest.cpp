#include "TestUtil.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

std::string roundTrip(const std::string& text) {
  auto m = parseOk(text);
  if (!m) return "";
  return printModule(*m);
}

// Parses, prints, parses the print and prints again; both prints must agree.
void expectIdempotent(const std::string& text) {
  std::string once = roundTrip(text);
  ASSERT_FALSE(once.empty());
  std::string twice = roundTrip(once);
  EXPECT_EQ(once, twice);
}

}  // namespace

TEST(Printer, NvccStyleInstructionLines) {
  std::string out = roundTrip(kernel(".reg .b32 %r<3>;\n.reg .pred %p<2>;\nadd.s32 %r1, %r2, 4;\n@!%p1 bra $L1;\n$L1:\nret;"));
  EXPECT_NE(out.find("\t.reg .b32 \t%r<3>;\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\tadd.s32 \t%r1, %r2, 4;\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\t@!%p1 bra \t$L1;\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n$L1:\n\tret;\n"), std::string::npos) << out;
}

TEST(Printer, LiteralsKeepTheirMeaning) {
  std::string out = roundTrip(kernel(".reg .b32 %r<4>;\n.reg .f64 %fd<2>;\n.reg .f32 %f<2>;\n"
                                     "mov.u32 %r1, 0x7fffffff;\nmov.u32 %r2, -2147483648;\nmov.b32 %r3, 4294967295U;\n"
                                     "mov.f64 %fd1, 0d3FF0000000000000;\nmov.f32 %f1, 0f3f800000;\nmov.f64 %fd1, 1.5;\n"
                                     "mov.f64 %fd1, -2.0e3;\nmov.u32 %r1, 010;\nmov.u32 %r1, 0b101;"));
  EXPECT_NE(out.find("%r1, 0x7FFFFFFF;"), std::string::npos) << out;
  EXPECT_NE(out.find("%r2, -2147483648;"), std::string::npos) << out;
  EXPECT_NE(out.find("%r3, 4294967295U;"), std::string::npos) << out;
  EXPECT_NE(out.find("%fd1, 0d3FF0000000000000;"), std::string::npos) << out;
  EXPECT_NE(out.find("%f1, 0f3F800000;"), std::string::npos) << out;
  EXPECT_NE(out.find("%fd1, 1.5;"), std::string::npos) << out;
  EXPECT_NE(out.find("%fd1, -2000.0;"), std::string::npos) << out;
  EXPECT_NE(out.find("%r1, 8;"), std::string::npos) << out;  // octal 010
  EXPECT_NE(out.find("%r1, 5;"), std::string::npos) << out;  // binary 0b101
}

TEST(Printer, AddressesVectorsPairsAndLists) {
  std::string out = roundTrip(kernel(".reg .b32 %r<5>;\n.reg .b64 %rd<3>;\n.reg .pred %p<2>;\n"
                                     "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];\n"
                                     "st.global.u32 [%rd1+-4], %r1;\n"
                                     "ld.param.u64 %rd2, [k_param_0+0];\n"
                                     "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;\n"
                                     "atom.global.exch.b32 _, [%rd1], %r1;",
                                     ".param .u64 k_param_0"));
  EXPECT_NE(out.find("{%r1, %r2, %r3, %r4}, [%rd1+16];"), std::string::npos) << out;
  EXPECT_NE(out.find("[%rd1+-4], %r1;"), std::string::npos) << out;
  EXPECT_NE(out.find("[k_param_0+0];"), std::string::npos) << out;
  EXPECT_NE(out.find("%r1|%p1, %r2, 1, 31, -1;"), std::string::npos) << out;
  EXPECT_NE(out.find("exch.b32 \t_, [%rd1], %r1;"), std::string::npos) << out;
}

TEST(Printer, VideoSelectorsStayOnTheirRegisters) {
  std::string text = kernel(".reg .b32 %r<5>;\n"
                            "vsub2.s32.s32.s32.sat %r1.h0, %r2.h10, %r3.h32, %r4;\n"
                            "vmin4.s32.u32.u32.add %r1.b10, %r2.b3210, %r3.b7654, %r1;\n"
                            "vabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r1;");
  std::string out = roundTrip(text);
  EXPECT_NE(out.find("%r1.h0, %r2.h10, %r3.h32, %r4;"), std::string::npos) << out;
  EXPECT_NE(out.find("%r1.b10, %r2.b3210, %r3.b7654, %r1;"), std::string::npos) << out;
  EXPECT_NE(out.find("vabsdiff4.u32.u32.u32 \t%r1, %r2, %r3, %r1;"), std::string::npos) << out;
  expectIdempotent(text);
  // Digits past a selector's range are not a selector (a parse error, not a silent drop).
  EXPECT_FALSE(lookupVideoSelector(".h4"));
  EXPECT_FALSE(lookupVideoSelector(".b8"));
  EXPECT_FALSE(lookupVideoSelector(".b32100"));
  const auto sel = lookupVideoSelector(".b0123");
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel->at(0), 3);  // the last digit written is the lowest position
  EXPECT_EQ(sel->at(3), 0);
  EXPECT_EQ(unpackVideoSelector(packVideoSelector(*sel)), sel);
}

TEST(Printer, TextureAddressesAndUnknownModifiers) {
  std::string text = ".version 9.0\n.target sm_90\n.address_size 64\n.global .texref tex0;\n"
                     ".visible .entry k()\n{\n.reg .f32 %f<7>;\n.reg .b64 %rd<2>;\n"
                     "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];\n"
                     "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
                     "ld.global.L2::256B.f32 %f1, [%rd1];\nret;\n}\n";
  std::string out = roundTrip(text);
  EXPECT_NE(out.find("[tex0, {%f5, %f6}]"), std::string::npos) << out;
  EXPECT_NE(out.find("[%rd1, {%f5, %f6}]"), std::string::npos) << out;
  EXPECT_NE(out.find("ld.global.L2::256B.f32 \t%f1, [%rd1];"), std::string::npos) << out;
  expectIdempotent(text);
}

TEST(Printer, DebugLocationsArePrintedWhenTheyChange) {
  std::string out = roundTrip(kernel(".reg .b32 %r<3>;\n.loc 1 4 2\nmov.u32 %r1, 1;\nmov.u32 %r2, 2;\n.loc 1 5 3\nret;"));
  EXPECT_NE(out.find("\t.loc\t1 4 2\n\tmov.u32 \t%r1, 1;\n\tmov.u32 \t%r2, 2;\n\t.loc\t1 5 3\n\tret;"), std::string::npos) << out;
}

TEST(Printer, ScopesDeclarationsAndPrototypesStayInPlace) {
  std::string text = kernel(".reg .b64 %rd<2>;\n{\n.reg .b32 temp_param_reg;\n.param .b64 param0;\n"
                            "prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
                            "st.param.b64 [param0+0], %rd1;\n.param .b32 retval0;\n"
                            "call (retval0), %rd1, (param0), prototype_0;\n}\nret;");
  std::string out = roundTrip(text);
  EXPECT_NE(out.find("\t{\n\t.reg .b32 \ttemp_param_reg;\n\t.param .b64 param0;\n\tprototype_0 : .callprototype "
                     "(.param .b32 _) _ (.param .b64 _);\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("call \t(retval0), %rd1, (param0), prototype_0;\n\t}\n"), std::string::npos) << out;
  expectIdempotent(text);
}

TEST(Printer, ModuleItemsKeepTheirOrder) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".extern .func (.param .b32 func_retval0) vprintf\n(\n.param .b64 a,\n.param .b64 b\n)\n;\n"
                     ".global .align 4 .u32 g = 7;\n"
                     ".weak .func f()\n{\nret;\n}\n"
                     ".visible .entry k()\n.reqntid 128\n{\nret;\n}\n"
                     "\t.file\t1 \"a.cu\"\n";
  std::string out = roundTrip(text);
  size_t a = out.find(".extern .func"), b = out.find(".global .align 4 .u32 g = 7;"), c = out.find(".weak .func f()"),
         d = out.find(".visible .entry k()\n.reqntid 128\n{"), e = out.find(".file\t1 \"a.cu\"");
  ASSERT_NE(a, std::string::npos) << out;
  ASSERT_NE(b, std::string::npos) << out;
  ASSERT_NE(c, std::string::npos) << out;
  ASSERT_NE(d, std::string::npos) << out;
  ASSERT_NE(e, std::string::npos) << out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, d);
  EXPECT_LT(d, e);
  expectIdempotent(text);
}
