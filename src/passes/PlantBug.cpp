// plant-bug: a testing aid, in no pipeline. A deliberately wrong rewrite of the first conditional
// branch of every function, so that the differential fuzzer has a miscompile to find and its
// reducer one to shrink: `kind=invert` inverts its guard (tests/lit/fuzz/reduce-planted-bug.test),
// `kind=uni` marks it `.uni`, a false assertion where its lanes disagree, which the emulator alone
// would run correctly (tests/lit/ptxrun/uni-split.test).
#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

class PlantBug : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager&, PassContext& ctx) override {
    const bool uni = ctx.knobs().getString("kind") == "uni";
    for (BasicBlock* b : f.blocks()) {
      Instruction* t = b->terminator();
      if (!t || !t->is(Opcode::Bra) || !t->hasGuard() || (uni && t->has(Mod::Uni))) continue;
      if (uni) {
        t->addMod(Mod::Uni);
        ctx.count("branches-marked-uni");
      } else {
        t->setGuard(t->guard(), !t->guardNegated());
        ctx.count("branches-inverted");
      }
      return PassResult::changed(PreservedAnalyses::cfg());  // both targets are still successors
    }
    return PassResult::unchanged();
  }
};

}  // namespace

PassInfo plantBugPassInfo() {
  return PassInfo{"plant-bug",
                  "testing aid: a wrong rewrite of the first conditional branch (inverted, or marked .uni) for testing the "
                  "fuzzer and its reducer",
                  "-",
                  {{"kind", KnobType::Choice, "invert",
                    "invert: invert the first conditional branch's guard; uni: mark it .uni (a false assertion where its lanes "
                    "disagree)",
                    false, "invert uni"}},
                  [] { return std::make_unique<PlantBug>(); },
                  /*testingAid=*/true};
}

}  // namespace ptxopt
