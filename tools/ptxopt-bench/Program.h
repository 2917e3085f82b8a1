// ptxopt-bench --program: the code-quality report of a whole CUDA program (docs/QUALITY.md,
// "Whole programs"). Each pipeline's run is `ptxrun exec --passes=P --loc-self --metrics` of the
// program in a fresh working directory; the kernels' figures are measured from the metrics
// (quality::measureProgramRun) and the runs' stdout and files are compared with the baseline's.
#pragma once

#include <string>
#include <vector>

#include "ptxopt/fuzz/Harness.h"
#include "ptxopt/quality/Measure.h"

namespace ptxopt::bench {

struct ProgramOptions {
  std::vector<std::string> command;       // the program and its arguments
  std::vector<fuzz::Pipeline> pipelines;  // the first is the baseline
  std::string outDir;                     // empty: ptxopt-bench-PROGRAM
  unsigned jobs = 1;                      // pipelines run at once
  unsigned timeout = 600;                 // seconds for one pipeline's run and measurement
  unsigned cfgPictures = 3;
  bool quiet = false;  // no progress lines
  quality::Tools tools;
  std::string commandLine;  // ptxopt-bench's own, for the report
};

// Returns the exit status: 0, or 1 when a run failed, outputs differ or the report cannot be
// written (with the reason on stderr).
int runProgram(const ProgramOptions& options);

}  // namespace ptxopt::bench
