// break-edges: a testing aid, in no pipeline. It empties the successor list of the entry block
// without touching its terminator, so that --verify-each has a broken CFG to report.
#include <algorithm>

#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

class BreakEdges : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager&, PassContext& ctx) override {
    if (!f.entry() || f.entry()->succs().empty()) return PassResult::unchanged();
    for (const Edge& e : f.entry()->succs()) {
      auto& preds = e.to->preds();
      preds.erase(std::find(preds.begin(), preds.end(), f.entry()));
    }
    f.entry()->succs().clear();
    ctx.count("edges-dropped");
    return PassResult::changed(PreservedAnalyses::none());
  }
};

}  // namespace

PassInfo breakEdgesPassInfo() {
  return PassInfo{"break-edges",
                  "testing aid: drop the entry block's CFG edges (in no pipeline; shows what --verify-each reports)",
                  "-",
                  {},
                  [] { return std::make_unique<BreakEdges>(); },
                  /*testingAid=*/true};
}

}  // namespace ptxopt
