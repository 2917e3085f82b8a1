// The reducer: shrinks a reproducer while its finding persists (the model is Binaryen's
// wasm-reduce and C-Reduce's line passes). It works on the module as ptxopt prints it, one
// instruction per line, and tries, until nothing more helps: deleting runs of instructions
// (halving the run length down to one), turning conditional branches and guarded instructions
// into unconditional ones, immediates into 0, dropping unused functions, kernel parameters
// (and the launch's matching parameter), unreferenced labels, and shrinking the grid and the
// block. A candidate is kept when the original still verifies and runs without a fault or race
// and the pipeline still gives the same verdict; each check runs in a child process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ptxopt/fuzz/Harness.h"

namespace ptxopt::fuzz {

struct ReduceOptions {
  HarnessOptions harness;      // ptxas is used only when the finding is a ptxas rejection
  unsigned timeoutSeconds = 60;
  unsigned jobs = 1;           // candidates checked at once
  std::function<void(const std::string&)> log;  // progress lines
};

struct ReduceResult {
  std::string ptx;
  emu::LaunchSpec spec;
  Verdict verdict = Verdict::Ok;
  uint64_t instructionsBefore = 0, instructionsAfter = 0;
  uint64_t candidatesTried = 0, candidatesKept = 0;
};

// False with `error` set when the reproducer does not show its finding to begin with.
bool reduceReproducer(const Reproducer& input, const ReduceOptions& options, ReduceResult& out, std::string& error);

// Instructions of a module (pseudo statements excluded), or 0 when it does not parse.
uint64_t countInstructions(const std::string& ptx);

}  // namespace ptxopt::fuzz
