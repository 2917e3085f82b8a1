// The dynamic figures of a run as JSON: `ptxrun --metrics` (one launch) and `ptxrun exec
// --metrics=FILE` (per kernel of a program) print the same fields.
#pragma once

#include <nlohmann/json.hpp>

#include "ptxopt/emu/Emulator.h"

namespace ptxopt::tools {

// warp_instructions, thread_instructions, simt_efficiency, branches, divergent_branches,
// barriers, max_reconvergence_depth, uni_splits (when any) and, with `perLine`, per_line: the
// first five by PTX line.
nlohmann::json metricsJson(const emu::Metrics& m, bool perLine);

}  // namespace ptxopt::tools
