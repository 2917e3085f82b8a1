// The passes, one per file under src/passes/. Each exposes its PassInfo (name, description,
// seed, knobs, factory); PassRegistry.cpp lists them.
#pragma once

#include "ptxopt/passes/Pass.h"

namespace ptxopt {

PassInfo branchOptPassInfo();
PassInfo deadCodeEliminationPassInfo();
PassInfo deadSyncPassInfo();
PassInfo selectPassInfo();
PassInfo commoningPassInfo();
PassInfo nestedCondPassInfo();
PassInfo switchOptPassInfo();
PassInfo predicationPassInfo();
PassInfo maskRegionsPassInfo();
PassInfo meldPassInfo();
PassInfo breakEdgesPassInfo();
PassInfo plantBugPassInfo();
PassInfo staleCfgPassInfo();

}  // namespace ptxopt
