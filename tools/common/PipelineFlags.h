// The optimization flags that ptxopt takes on its command line and ptxopt-ptxas takes from
// PTXOPT_FLAGS: one definition, so that the two tools accept the same words and mean the same.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ptxopt/analysis/Profile.h"
#include "ptxopt/passes/PassManager.h"

namespace ptxopt::tools {

struct PipelineFlags {
  unsigned optLevel = 2;
  std::string passes;                          // --passes: a comma list instead of -O
  std::vector<std::string> disabled, knobs;    // --disable-pass, --knob PASS.KNOB=VALUE
  std::string profileUse;                      // --profile-use
  std::string remarks;                         // --remarks
  bool verifyEach = false;
};

// Adds -O, --passes, --disable-pass, --knob, --profile-use, --remarks and --verify-each.
void addPipelineFlags(CLI::App& app, PipelineFlags& flags);

// The pass manager options the flags ask for: the -O pipeline or --passes, the disabled passes
// (with PTXOPT_DISABLED_PASSES), the knobs and --verify-each. False with `error` set on a
// malformed --knob.
bool pipelineOptions(const PipelineFlags& flags, PassManagerOptions& out, std::string& error);

// The pipeline's passes as "a,b,c" (after the disabled ones are taken out); "(no passes)".
std::string pipelineText(const PassManager& pm);

// Reads the profile `path` for the module `m` (shown as `displayName`), parsed from `text`.
// Entries that name another module (by ptxTextHash) are left out; when the profile names
// modules and `text` is none of them, a warning says so and no entry of theirs is used. Entries that name no
// branch of `m` are reported as warning lines in `warnings`, at most five and a count; with
// `onlyFunctionsOf`, entries of functions `m` does not have are dropped first, unreported (a
// profile of a whole program applied to one of its modules). False when the file cannot be read
// or is not a profile, with `error` set ("PATH:LINE:COL: error: ..." when the profile is
// malformed, else a message without a location).
bool loadProfile(const std::string& path, const Module& m, std::string_view text, const std::string& displayName,
                 bool onlyFunctionsOf, BranchProfile& profile, std::string& warnings, std::string& error);

// One remark as a JSON line (no newline).
std::string remarkJson(const Remark& r);

}  // namespace ptxopt::tools
