// Branch profiles: the text hash that names a module, and entries scoped to a module.
#include <gtest/gtest.h>

#include "ptxopt/analysis/Profile.h"

namespace ptxopt {
namespace {

TEST(PtxTextHash, CommentsAndBlanksDoNotCount) {
  std::string a = ".version 8.0\n.target sm_90\n\tadd.s32 %r1, %r2, %r3;\n";
  EXPECT_EQ(ptxTextHash(a), ptxTextHash(".version 8.0  // v\n.target   sm_90\n    add.s32 %r1,%r2,%r3; /* x */\n"));
  EXPECT_EQ(ptxTextHash(a).size(), 16u);
  // A block comment's line breaks stay: the lines after it keep their numbers.
  EXPECT_EQ(ptxTextHash("a\n/* x\n y */b\n"), ptxTextHash("a\n\nb\n"));
}

TEST(PtxTextHash, WhatChangesTheHash) {
  std::string a = "add.s32 %r1, %r2, %r3;\nret;\n";
  EXPECT_NE(ptxTextHash(a), ptxTextHash("add.s32 %r1, %r2, %r4;\nret;\n"));  // an operand
  EXPECT_NE(ptxTextHash(a), ptxTextHash("add.s32 %r1, %r2, %r3;\n\nret;\n"));  // a line moved
  // "//" in a string is not a comment.
  EXPECT_NE(ptxTextHash(".file 1 \"/a//b.cu\"\n"), ptxTextHash(".file 1 \"/a//c.cu\"\n"));
}

TEST(BranchProfileFile, EntriesOfOtherModulesAreLeftOut) {
  BranchProfile a, b;
  a.ptx = "a.ptx";
  a.module = "00000000000000aa";
  a.branches[{"k", 10}].allTaken = 3;
  b.ptx = "b.ptx";
  b.module = "00000000000000bb";
  b.branches[{"k", 10}].divergent = 5;
  std::string text = branchProfilesJson({a, b}, "(all)", "(all)");
  BranchProfile read;
  std::string error;
  ASSERT_TRUE(parseBranchProfile(text, "p.json", read, error, "00000000000000bb")) << error;
  ASSERT_EQ(read.branches.size(), 1u);
  EXPECT_EQ(read.branches.begin()->second.divergent, 5u);
  EXPECT_EQ(read.modulesInFile.size(), 2u);
  EXPECT_EQ(read.modulesInFile.at("00000000000000aa"), "a.ptx");
  // Without a module to select, both modules' entries at one (function, line) add up.
  ASSERT_TRUE(parseBranchProfile(text, "p.json", read, error)) << error;
  EXPECT_EQ(read.branches.begin()->second.executions(), 8u);
  // Another module: nothing of theirs.
  ASSERT_TRUE(parseBranchProfile(text, "p.json", read, error, "00000000000000cc")) << error;
  EXPECT_TRUE(read.branches.empty());
}

}  // namespace
}  // namespace ptxopt
