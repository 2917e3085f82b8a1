// The guarded-code builder of src/passes/GuardedCode.h tested directly: the conjunction of a
// way's guard with an instruction's own guard (shared by a run of instructions, made again once
// the guard is written), what may run unguarded (private temporaries in a caller's scope, first
// writes of dead registers), and what may carry a guard at all.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ptx/Printer.h"

#include "GuardedCode.h"

using namespace ptxopt;
using namespace ptxopt::test;

namespace {

const char* kGuardedRegs = ".reg .pred %p<6>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n";

struct Fn {
  std::unique_ptr<Module> m;
  Function* f = nullptr;
  explicit Fn(const std::string& body) {
    m = parseOk(kernel(std::string(kGuardedRegs) + body, ".param .u64 out"));
    if (!m) return;
    f = &onlyFunction(*m);
    buildCfg(*f);
  }
  BasicBlock* block(std::string_view name) const {
    for (BasicBlock* b : f->blocks())
      if (b->name() == name) return b;
    throw std::runtime_error("no block " + std::string(name));
  }
  std::vector<std::string> text(const std::vector<Instruction*>& insts) const {
    std::vector<std::string> out;
    for (const Instruction* i : insts) {
      std::string s = printInstruction(*f, *i);
      std::replace(s.begin(), s.end(), '\t', ' ');
      while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == ';')) s.pop_back();
      for (size_t k; (k = s.find("  ")) != std::string::npos;) s.erase(k, 1);
      size_t b = s.find_first_not_of(" \t");
      out.push_back(b == std::string::npos ? s : s.substr(b));
    }
    return out;
  }
  // The entry block's instructions, without the terminator.
  std::vector<Instruction*> body() const {
    std::vector<Instruction*> v(f->entry()->insts().begin(), f->entry()->insts().end());
    if (!v.empty() && v.back()->is(Opcode::Ret)) v.pop_back();
    return v;
  }
  RegId reg(std::string_view name) const {
    for (RegId r = 0; r < f->regs().size(); ++r)
      if (f->regName(r) == name) return r;
    throw std::runtime_error("no register " + std::string(name));
  }
};

}  // namespace

TEST(GuardedLine, GuardsAndSharesOneConjunctionPerRunOfAGuard) {
  Fn t("setp.ne.u32 %p1, %r1, 0;\n"
       "add.u32 %r2, %r1, 1;\n"
       "@%p2 add.u32 %r3, %r1, 2;\n"
       "@%p2 add.u32 %r4, %r1, 3;\n"
       "@!%p2 add.u32 %r5, %r1, 4;\n"
       "ret;");
  ASSERT_TRUE(t.f);
  std::vector<Instruction*> in = t.body(), out;
  GuardedLine line(*t.f, out, t.reg("%p1"), /*negated=*/true, "%pq");
  for (size_t k = 1; k < in.size(); ++k) line.add(in[k]);
  EXPECT_EQ(line.conjunctions(), 2u);
  std::vector<std::string> s = t.text(out);
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0], "@!%p1 add.u32 %r2, %r1, 1");
  // One conjunction for the two instructions under %p2, another for !%p2.
  EXPECT_NE(s[1].find("and.pred"), std::string::npos);
  EXPECT_NE(s[1].find("!%p1, %p2"), std::string::npos);
  std::string conj = s[1].substr(s[1].find("%pq"), s[1].find(',') - s[1].find("%pq"));
  EXPECT_EQ(s[2], "@" + conj + " add.u32 %r3, %r1, 2");
  EXPECT_EQ(s[3], "@" + conj + " add.u32 %r4, %r1, 3");
  EXPECT_NE(s[4].find("!%p1, !%p2"), std::string::npos);
  EXPECT_EQ(s[5].find("@" + conj + " "), std::string::npos);
}

TEST(GuardedLine, AWriteOfTheGuardEndsTheSharedConjunction) {
  Fn t("@%p2 add.u32 %r3, %r1, 2;\n"
       "setp.ne.u32 %p2, %r3, 0;\n"
       "@%p2 add.u32 %r4, %r1, 3;\n"
       "ret;");
  ASSERT_TRUE(t.f);
  std::vector<Instruction*> in = t.body(), out;
  GuardedLine line(*t.f, out, t.reg("%p1"), false, "%pq");
  for (Instruction* i : in) line.add(i);
  // The setp writes %p2: the instruction after it needs a conjunction of its own.
  EXPECT_EQ(line.conjunctions(), 2u);
  EXPECT_EQ(out.size(), 5u);
}

TEST(GuardedLine, UnguardedInstructionsStayAsTheyAre) {
  Fn t("add.u32 %r2, %r1, 1;\nret;");
  ASSERT_TRUE(t.f);
  std::vector<Instruction*> in = t.body(), out;
  GuardedLine line(*t.f, out, t.reg("%r1") /*any register*/, false, "%pq");
  line.addUnguarded(in[0]);
  EXPECT_FALSE(out[0]->hasGuard());
  EXPECT_EQ(line.conjunctions(), 0u);
}

TEST(ConjunctionCache, KeyedByGuardAndNegation) {
  Fn t("setp.ne.u32 %p2, %r1, 0;\nret;");
  ASSERT_TRUE(t.f);
  ConjunctionCache<int> c;
  int made = 0;
  auto make = [&] { return ++made; };
  EXPECT_EQ(c.get(RegId(7), false, make), 1);
  EXPECT_EQ(c.get(RegId(7), false, make), 1);
  EXPECT_EQ(c.get(RegId(7), true, make), 2);
  EXPECT_EQ(c.get(RegId(8), false, make), 3);
  // An instruction that writes %p2 forgets only %p2's entries.
  RegId p2 = t.reg("%p2");
  EXPECT_EQ(c.get(p2, false, make), 4);
  c.after(*t.body()[0]);
  EXPECT_EQ(c.get(p2, false, make), 5);
  EXPECT_EQ(c.get(RegId(7), false, make), 1);
}

TEST(PrivateTemporaries, AllWritesInScopeAndDeadAtTheEnds) {
  Fn t("mov.u32 %r1, %tid.x;\n"
       "setp.lt.u32 %p1, %r1, 16;\n"
       "@%p1 bra $Lside;\n"
       "mov.u32 %r6, 5;\n"
       "bra.uni $Lmerge;\n"
       "$Lside:\n"
       "add.u32 %r2, %r1, 1;\n"        // private: only here, dead at both ends
       "mul.lo.u32 %r3, %r2, 3;\n"     // %r3 read after the merge: not private
       "add.u32 %r6, %r1, 7;\n"        // %r6 also written outside the side
       "div.u32 %r7, %r1, %r2;\n"      // private, and speculatable
       "ld.global.u32 %r8, [%rd1];\n"  // a load may fault
       "$Lmerge:\n"
       "add.u32 %r9, %r3, %r6;\n"
       "ret;");
  ASSERT_TRUE(t.f);
  FunctionAnalysisManager am(*t.f);
  const Liveness& lv = am.get<LivenessAnalysis>();
  DefinitionSites defs(*t.f);
  BasicBlock* side = t.block("$Lside");
  BasicBlock* merge = t.block("$Lmerge");
  auto inSide = [&](const BasicBlock* b) { return b == side; };
  std::vector<bool> got;
  for (const Instruction* i : side->insts())
    got.push_back(writesOnlyPrivateTemporaries(*i, defs, inSide, {&lv.liveOut[t.f->entry()->id()], &lv.liveIn[merge->id()]}));
  EXPECT_EQ(got, (std::vector<bool>{true, false, false, true, false}));
  // With the whole function in scope, %r6 counts as written only there too.
  auto everywhere = [](const BasicBlock*) { return true; };
  EXPECT_FALSE(writesOnlyPrivateTemporaries(*side->insts()[2], defs, everywhere, {&lv.liveIn[merge->id()]}));
  EXPECT_TRUE(writesOnlyPrivateTemporaries(*side->insts()[2], defs, everywhere, {}));
}

TEST(FirstWrites, OnlyTheFirstWriteOfADeadRegister) {
  Fn t("add.u32 %r2, %r1, 1;\n"
       "add.u32 %r2, %r2, 1;\n"
       "add.u32 %r3, %r1, 1;\n"
       "@%p1 add.u32 %r4, %r1, 1;\n"
       "st.global.u32 [%rd1], %r2;\n"
       "ret;");
  ASSERT_TRUE(t.f);
  BitVector liveBefore(t.f->regs().size());
  liveBefore.set(t.reg("%r3"));
  FirstWrites w(liveBefore);
  std::vector<bool> got;
  for (const Instruction* i : t.body()) {
    got.push_back(w.mayRunUnguarded(*i));
    w.after(*i);
  }
  // The second write of %r2; %r3 live before; a guarded instruction; a store.
  EXPECT_EQ(got, (std::vector<bool>{true, false, false, false, false}));
}

TEST(WhyNotPredicable, BarriersCollectivesCallsAndTerminators) {
  Fn t("bar.sync 0;\n"
       "vote.sync.any.pred %p2, %p1, -1;\n"
       "add.u32 %r2, %r1, 1;\n"
       "ret;");
  ASSERT_TRUE(t.f);
  std::vector<Instruction*> in(t.f->entry()->insts().begin(), t.f->entry()->insts().end());
  EXPECT_EQ(whyNotPredicable(*in[0]), "a CTA barrier");
  EXPECT_EQ(whyNotPredicable(*in[1]), "a warp collective");
  EXPECT_EQ(whyNotPredicable(*in[2]), "");
  EXPECT_EQ(whyNotPredicable(*in[3]), "a ret inside a side");
}
