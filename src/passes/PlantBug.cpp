// plant-bug: a testing aid, in no pipeline. A deliberately wrong rewrite of the first conditional
// branch of every function, so that the tools that must catch a bad optimizer have one to catch:
//   kind=invert     inverts its guard: a miscompile for the differential fuzzer and its reducer
//                   (tests/lit/fuzz/reduce-planted-bug.test);
//   kind=uni        marks it `.uni`, a false assertion where its lanes disagree, which the emulator
//                   alone would run correctly (tests/lit/ptxrun/uni-split.test);
//   kind=reject     gives it a qualifier ptxas rejects (`.ptxopt::planted`) and ptxopt's verifier
//                   keeps, as qualifiers with '::' are kept verbatim: output that ptxas refuses;
//   kind=malformed  gives it a modifier the verifier rejects (`.ptxopt_planted`);
//   kind=crash      aborts the process, as a crash of a pass would;
//   kind=hang       never returns, as a pass caught in an endless loop would.
// The last three test how ptxopt-ptxas survives its optimizer (tests/lit/ptxopt-ptxas/).
#include <chrono>
#include <cstdlib>
#include <thread>

#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

class PlantBug : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager&, PassContext& ctx) override {
    const std::string kind(ctx.knobs().getString("kind"));
    const bool uni = kind == "uni";
    for (BasicBlock* b : f.blocks()) {
      Instruction* t = b->terminator();
      if (!t || !t->is(Opcode::Bra) || !t->hasGuard() || (uni && t->has(Mod::Uni))) continue;
      if (kind == "crash") std::abort();
      if (kind == "hang")
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      if (uni) {
        t->addMod(Mod::Uni);
        ctx.count("branches-marked-uni");
      } else if (kind == "reject" || kind == "malformed") {
        t->addMod(lookupMod(kind == "reject" ? ".ptxopt::planted" : ".ptxopt_planted", f.parent()->strings()));
        ctx.count("branches-spoiled");
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
                  "testing aid: a wrong rewrite of the first conditional branch (inverted, marked .uni, spoiled for ptxas "
                  "or the verifier, a crash or a hang) for testing the fuzzer, its reducer and ptxopt-ptxas",
                  "-",
                  {{"kind", KnobType::Choice, "invert",
                    "invert: invert the first conditional branch's guard; uni: mark it .uni (a false assertion where its lanes "
                    "disagree); reject: add a qualifier ptxas rejects; malformed: add a modifier the verifier rejects; crash: "
                    "abort; hang: never return",
                    false, "invert uni reject malformed crash hang"}},
                  [] { return std::make_unique<PlantBug>(); },
                  /*testingAid=*/true};
}

}  // namespace ptxopt
