#include "TestUtil.h"
#include "ptxopt/passes/PassManager.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

// Dead code on both sides of a diamond: dce removes it without touching a branch.
const char* kDeadDiamond =
    ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n"
    "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra $Lthen;\n"
    "$Lelse:\nmov.u32 %r2, 1;\nadd.s32 %r5, %r2, 3;\nbra.uni $Ljoin;\n"
    "$Lthen:\nmov.u32 %r2, 2;\nadd.s32 %r6, %r2, 4;\n"
    "$Ljoin:\nadd.s32 %r3, %r2, %r1;\nmul.lo.s32 %r7, %r3, %r3;\nret;";

PassRunResult runPipeline(Module& m, std::vector<std::string> passes, bool verifyEach = true) {
  PassManagerOptions o;
  o.pipeline = std::move(passes);
  o.verifyEach = verifyEach;
  PassManager pm;
  std::string error;
  EXPECT_TRUE(pm.configure(o, error)) << error;
  DiagEngine diags;
  PassRunResult r = pm.run(m, diags);
  EXPECT_TRUE(r.ok) << diags.str();
  return r;
}

}  // namespace

TEST(PassManager, APassThatKeepsTheCfgDoesNotMakeItBeRebuilt) {
  auto m = parseOk(kernel(kDeadDiamond));
  ASSERT_TRUE(m);
  PassRunResult r = runPipeline(*m, {"dce", "dce", "dce"});
  EXPECT_GT(r.counts["dce.instructions-removed"], 0u);
  // Each dce sweep needs liveness again, but the CFG it is computed on is built once.
  EXPECT_EQ(r.analysisRuns["cfg"], 1u);
  EXPECT_GE(r.analysisRuns["liveness"], 3u);
}

TEST(PassManager, APassThatChangesTheCfgMakesItBeRebuilt) {
  // branch-opt folds the constant branch and keeps nothing; the dce after it builds the CFG anew.
  auto m = parseOk(kernel(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nsetp.lt.u32 %p1, 3, 4;\n@%p1 bra $L;\n"
                          "mov.u32 %r1, 1;\n$L:\nret;"));
  ASSERT_TRUE(m);
  PassRunResult r = runPipeline(*m, {"branch-opt", "dce"});
  EXPECT_EQ(r.counts["branch-opt.constant-conditions"], 1u);
  EXPECT_EQ(r.analysisRuns["cfg"], 3u);  // branch-opt's walk, its unreachable-block sweep, dce
}
