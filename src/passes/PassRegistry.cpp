// The registry of passes and the -O pipelines: the one place that lists them.
#include <algorithm>

#include "ptxopt/passes/Passes.h"
#include "ptxopt/passes/PtxasModel.h"

namespace ptxopt {

const std::vector<PassInfo>& allPasses() {
  static const std::vector<PassInfo> kPasses = {
      branchOptPassInfo(),
      deadCodeEliminationPassInfo(),
      deadSyncPassInfo(),
      selectPassInfo(),
      commoningPassInfo(),
      nestedCondPassInfo(),
      switchOptPassInfo(),
      predicationPassInfo(),
      maskRegionsPassInfo(),
      meldPassInfo(),
      breakEdgesPassInfo(),
      plantBugPassInfo(),
      staleCfgPassInfo(),
  };
  return kPasses;
}

const PassInfo* findPass(std::string_view name) {
  for (const PassInfo& p : allPasses())
    if (p.name == name) return &p;
  return nullptr;
}

const std::vector<KnobSpec>* findKnobs(std::string_view owner) {
  if (owner == kPtxasKnobOwner) return &PtxasModel::knobs();
  const PassInfo* p = findPass(owner);
  return p ? &p->knobs : nullptr;
}

const std::vector<std::string_view>& pipelineForLevel(unsigned level) {
  static const std::vector<std::string_view> kPipelines[] = {
      /* -O0 */ {},
      /* -O1 */ {"branch-opt", "dce"},
      /* -O2 */ {"switch-opt", "branch-opt", "dce", "dead-sync", "nested-cond", "commoning", "select"},
      // -O3 adds mask-regions, which wins on nested divergent kernels and loses on some that
      // ptxas if-converts well itself (docs/passes/mask-regions.md).
      /* -O3 */ {"switch-opt", "meld", "branch-opt", "dce", "dead-sync", "nested-cond", "commoning", "select", "mask-regions"},
  };
  return kPipelines[std::min(level, 3u)];
}

}  // namespace ptxopt
