// ptxrun exec: runs an unmodified CUDA program (built with `nvcc -cudart shared`) on ptxrun's
// CUDA runtime stand-in.
#pragma once

#include <string>
#include <vector>

namespace ptxopt::tools {

struct ExecOptions {
  std::vector<std::string> command;  // the program and its arguments
  unsigned jobs = 1;                 // host threads for a launch's CTAs
  bool verbose = false;              // a line per module and launch on stderr
  std::string passes;                // a pipeline each module is optimized with ("-O3", "a,b")
  std::vector<std::string> knobs;    // PASS.KNOB=VALUE settings for the passes
  bool locSelf = false;              // print the optimized modules with .loc lines naming their own lines
  std::string profileUse;            // a branch profile for the passes' cost models
  std::string profileOut;            // where to write the branch profile of every launch
  bool compare = false;              // run each launch on the optimized modules too and compare
  std::string metrics;               // where to write per-kernel dynamic figures (JSON)
  std::string checkRaces;            // check every launch for races: "", "on" or "strict"
};

// Runs the program to completion; returns its exit status (128 + N when signal N killed it),
// or 1 with a message when it cannot be run on the stand-in.
int runExec(const ExecOptions& options);

}  // namespace ptxopt::tools
