// plant-bug: a testing aid, in no pipeline. A deliberately wrong rewrite: it inverts the guard
// of the first conditional branch of every function, so that the differential fuzzer has a
// miscompile to find and its reducer one to shrink (tests/lit/fuzz/reduce-planted-bug.test).
#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

class PlantBug : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager&, PassContext& ctx) override {
    for (BasicBlock* b : f.blocks()) {
      Instruction* t = b->terminator();
      if (!t || !t->is(Opcode::Bra) || !t->hasGuard()) continue;
      t->setGuard(t->guard(), !t->guardNegated());
      ctx.count("branches-inverted");
      return PassResult::changed(PreservedAnalyses::cfg());  // both targets are still successors
    }
    return PassResult::unchanged();
  }
};

}  // namespace

PassInfo plantBugPassInfo() {
  return PassInfo{"plant-bug",
                  "testing aid: a wrong rewrite (inverts the first conditional branch) for testing the fuzzer's reducer",
                  "-",
                  {},
                  [] { return std::make_unique<PlantBug>(); },
                  /*testingAid=*/true};
}

}  // namespace ptxopt
