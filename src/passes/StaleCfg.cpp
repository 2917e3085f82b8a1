// stale-cfg: a testing aid, in no pipeline. It makes the first conditional branch of each
// function unconditional (the fall-through edge goes; the CFG edges are rebuilt, so the IR
// verifier is satisfied) but claims to preserve the CFG analyses, which is false: --verify-each
// must report the stale analysis (tests/lit/passes/preserved-analyses.test).
#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

class StaleCfg : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    am.get<CfgAnalysis>();  // cached now, and kept by the false claim below
    for (BasicBlock* b : f.blocks()) {
      Instruction* t = b->terminator();
      if (!t || !t->is(Opcode::Bra) || !t->hasGuard()) continue;
      t->clearGuard();
      buildCfg(f);
      ctx.count("branches-made-unconditional");
      return PassResult::changed(PreservedAnalyses::cfg());
    }
    return PassResult::unchanged();
  }
};

}  // namespace

PassInfo staleCfgPassInfo() {
  return PassInfo{"stale-cfg",
                  "testing aid: changes a branch but claims to preserve the CFG (shows what --verify-each reports)",
                  "-",
                  {},
                  [] { return std::make_unique<StaleCfg>(); },
                  /*testingAid=*/true};
}

}  // namespace ptxopt
