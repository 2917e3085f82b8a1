// ptxopt-bench --program: a whole CUDA program run under one pipeline (`ptxrun exec --passes=P
// --loc-self --metrics=FILE`), measured kernel by kernel: the emulator's figures over every
// launch, and the SASS of each module's text as it ran with the estimate from the kernel's
// per-line counts (measureSass, as for a single launch). And what the run left (its stdout and
// the files it wrote), which runs under different pipelines must agree on (docs/QUALITY.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ptxopt/emu/Emulator.h"
#include "ptxopt/quality/Measure.h"

namespace ptxopt::quality {

// `ptxrun exec --metrics`'s file, read back.
struct ProgramRun {
  struct Module {
    std::string name, hash, ptx;  // ptx: the text that ran, which the per-line counts refer to
    bool optimized = true;        // false: the passes failed on it (or --compare) and it ran as built
  };
  struct Kernel {
    std::string module, kernel;
    uint64_t launches = 0, warps = 0;  // warps launched, over every launch
    emu::Metrics metrics;              // over every launch, with perLine
  };
  std::string passes;
  std::vector<Module> modules;
  std::vector<Kernel> kernels;
};
bool readProgramRun(const std::string& json, ProgramRun& out, std::string& error);

// One measurement per kernel that ran, in the order of `run`: `file` is PROGRAM/MODULE, the
// emulator's figures are the run's over every launch of the kernel, the SASS figures those of
// its module's text (written to workDir/MODULE, assembled once per target; the text must carry
// --loc-self lines, as `ptxrun exec --loc-self` prints it). A module that ran unoptimized makes
// its kernels' measurements errors.
std::vector<Measurement> measureProgramRun(const ProgramRun& run, const std::string& program,
                                           const std::string& pipeline, const Tools& tools, const std::string& workDir);

// The program's total under one pipeline (file PROGRAM, kernel "(total)"): the sums of its
// kernels' figures (static SASS too: each kernel's entry and callees), the estimate only when
// every kernel has one, the most registers, the first error of a kernel.
Measurement programTotal(const std::vector<Measurement>& kernels, const std::string& program,
                         const std::string& pipeline);

// What a run of a program left: its standard output and every regular file under its working
// directory (by path relative to it: size and hash).
struct ProgramOutputs {
  std::string dir;
  std::string stdoutText;
  std::map<std::string, std::pair<uint64_t, uint64_t>> files;
};
bool collectOutputs(const std::string& dir, std::string stdoutText, ProgramOutputs& out, std::string& error);
// A hash of stdout and every file (names and contents): equal digests, equal outputs.
std::string outputsDigest(const ProgramOutputs& o);
// How `other` differs from `base`, one line per difference: "stdout differs at byte N (A and B
// bytes)", "file F differs at byte N (A and B bytes)", "file F is missing", "file F was not
// written by the baseline". Empty when they agree.
std::vector<std::string> compareOutputs(const ProgramOutputs& base, const ProgramOutputs& other);

}  // namespace ptxopt::quality
