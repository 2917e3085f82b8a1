#include <gtest/gtest.h>

#include <vector>

#include "ptxopt/ptx/Lexer.h"

using namespace ptxopt;

namespace {

std::vector<Token> lexAll(std::string_view src) {
  Lexer lex(src);
  std::vector<Token> out;
  for (;;) {
    Token t = lex.next();
    if (t.kind == TokKind::Eof) break;
    out.push_back(t);
  }
  return out;
}

std::string lexError(std::string_view src) {
  try {
    lexAll(src);
  } catch (const FatalDiagnostic& e) {
    return std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col) + ": " + e.what();
  }
  return "";
}

}  // namespace

TEST(Lexer, MnemonicSplitsIntoIdentifierAndAdjacentModifiers) {
  auto t = lexAll("ld.global.nc.f32 %f1, [%rd2+-4];");
  ASSERT_GE(t.size(), 5u);
  EXPECT_EQ(t[0].kind, TokKind::Ident);
  EXPECT_EQ(t[0].text, "ld");
  EXPECT_EQ(t[1].kind, TokKind::Dot);
  EXPECT_EQ(t[1].text, ".global");
  EXPECT_FALSE(t[1].spaceBefore);
  EXPECT_EQ(t[3].text, ".f32");
  EXPECT_EQ(t[4].text, "%f1");
  EXPECT_TRUE(t[4].spaceBefore);
}

TEST(Lexer, QualifiedModifiersKeepDoubleColons) {
  auto t = lexAll("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[3].text, ".shared::cluster");
  EXPECT_EQ(t[5].text, ".mbarrier::complete_tx::bytes");
}

TEST(Lexer, SpecialRegisterComponentIsPartOfTheName) {
  auto t = lexAll("%tid.x %ntid.y %r1.w %rd1");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].text, "%tid.x");
  EXPECT_EQ(t[1].text, "%ntid.y");
  EXPECT_EQ(t[2].text, "%r1.w");
  EXPECT_EQ(t[3].text, "%rd1");
}

TEST(Lexer, Numbers) {
  auto t = lexAll("0f3F800000 0d3FF0000000000000 0x7FFFFFFF 42U 017 0b101 1.5 2e10 9.0");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].kind, TokKind::Float);
  EXPECT_EQ(t[1].kind, TokKind::Float);
  EXPECT_EQ(t[2].kind, TokKind::Int);
  EXPECT_EQ(t[3].kind, TokKind::Int);
  EXPECT_EQ(t[3].text, "42U");
  EXPECT_EQ(t[4].kind, TokKind::Int);
  EXPECT_EQ(t[5].kind, TokKind::Int);
  EXPECT_EQ(t[6].kind, TokKind::Float);
  EXPECT_EQ(t[7].kind, TokKind::Float);
  EXPECT_EQ(t[8].kind, TokKind::Float);
}

TEST(Lexer, LabelsAndDollarNames) {
  auto t = lexAll("$L__BB0_3: Ltmp3 LBB2_1 $str$1 __local_depot0 _");
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t[0].text, "$L__BB0_3");
  EXPECT_EQ(t[1].kind, TokKind::Colon);
  EXPECT_EQ(t[4].text, "$str$1");
  EXPECT_EQ(t[6].text, "_");
}

TEST(Lexer, NewlinesAndCommentsAreTracked) {
  auto t = lexAll(".target sm_90 // comment\n/* block\ncomment */ .address_size 64");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_FALSE(t[1].newlineBefore);
  EXPECT_TRUE(t[2].newlineBefore);
  EXPECT_EQ(t[2].loc.line, 3u);
  EXPECT_EQ(t[2].loc.col, 12u);
}

TEST(Lexer, Strings) {
  auto t = lexAll(".pragma \"nounroll\";");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].kind, TokKind::String);
  EXPECT_EQ(t[1].text, "\"nounroll\"");
}

TEST(Lexer, ErrorsCarryLineAndColumn) {
  EXPECT_EQ(lexError("add\n  \x01"), "2:3: unexpected byte 0x01");
  EXPECT_EQ(lexError("x `"), "1:3: unexpected character '`'");
  EXPECT_EQ(lexError("\"abc"), "1:1: unterminated string");
  EXPECT_EQ(lexError("/* abc"), "1:1: unterminated block comment");
  EXPECT_EQ(lexError("0f3F80"), "1:1: a 0f float literal needs exactly 8 hexadecimal digits");
  EXPECT_EQ(lexError("#include <x>"), "1:1: preprocessor directives are not supported; run the C preprocessor first");
  EXPECT_EQ(lexError("12abc"), "1:3: invalid character in number");
}
