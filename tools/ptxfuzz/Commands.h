// ptxfuzz's subcommands other than gen: run (the differential campaign), reduce and mutate.
// Each has its options, a function that declares them on the command line and one that runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ptxfuzz {

constexpr int kOk = 0, kError = 1, kInternal = 2, kFindings = 3;

struct RunCommand {
  std::string seeds = "1..100";
  std::vector<std::string> passes;  // "-O2", "branch-opt,dce", "random", "random:3"
  std::string knobs;                // "random"
  std::vector<std::string> setKnobs;  // PASS.KNOB=VALUE, in every pipeline
  unsigned jobs = 1;
  std::string outDir = "ptxfuzz-findings";
  std::string ptxas;
  bool noPtxas = false;
  unsigned timeout = 120;
  unsigned ptxasTimeout = 30;
  unsigned randomSchedules = 0;
  bool barrierHeavy = false;
  bool ifElseHeavy = false;
  bool switchHeavy = false;
  bool nestingHeavy = false;
  bool asyncCopies = false;
  bool meldHeavy = false;
  std::string size = "random";
  std::string kernel, launch;       // one given kernel instead of generated ones
  bool quiet = false;
};
void addRun(CLI::App& app, RunCommand& c);
int runRun(const RunCommand& c);

struct ReduceCommand {
  std::string dir;
  std::string output;  // default: DIR/reduced.ptx and DIR/reduced.json
  unsigned jobs = 1;
  unsigned timeout = 60;
  unsigned ptxasTimeout = 30;
  std::string ptxas;
  bool noPtxas = false;
};
void addReduce(CLI::App& app, ReduceCommand& c);
int runReduce(const ReduceCommand& c);

struct MutateCommand {
  uint64_t seed = 1;
  std::vector<std::string> inputs;  // one file, or (with --campaign) files and directories
  std::string output = "-";
  std::string kind;
  uint64_t campaign = 0;
  unsigned jobs = 1;
  std::string outDir;
  std::string ptxas;
  uint64_t maxBytes = 65536;
};
void addMutate(CLI::App& app, MutateCommand& c);
int runMutate(const MutateCommand& c);

// --size: small, medium, large or random (the generator's KernelSize names).
void addSizeOption(CLI::App* cmd, std::string& size);

// The ptxas to use: the one given, else /usr/local/cuda/bin/ptxas or the PATH's; empty when
// there is none or `disabled`.
std::string findPtxas(const std::string& given, bool disabled);

}  // namespace ptxfuzz
