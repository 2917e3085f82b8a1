// A differential fuzzing campaign: for each seed, a kernel (from the generator, or given),
// checked under every pipeline asked for, each seed in its own child process so that a crash or
// a hang of the optimizer is a finding, not the end of the campaign. Findings are written as
// reproducer directories (Harness.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ptxopt/fuzz/Harness.h"

namespace ptxopt::fuzz {

// Makes the kernel of one seed; false with `error` set when it cannot.
struct KernelSource {
  std::function<bool(uint64_t seed, std::string& name, std::string& ptx, emu::LaunchSpec& spec, std::string& error)> make;
};

struct CampaignOptions {
  uint64_t firstSeed = 0, lastSeed = 0;  // inclusive
  std::vector<Pipeline> pipelines;       // checked for every seed
  unsigned randomPipelines = 0;          // and this many random ones per seed
  bool randomKnobs = false;
  std::map<std::string, std::string> knobs;  // PASS.KNOB -> value, set in every pipeline
  unsigned jobs = 1;
  unsigned timeoutSeconds = 120;         // per seed
  std::string outDir = "ptxfuzz-findings";
  HarnessOptions harness;
  // Called in the parent after each seed (for progress lines).
  std::function<void(const struct CampaignSummary&)> progress;
};

struct CampaignSummary {
  uint64_t kernels = 0;     // seeds whose kernel was checked
  uint64_t badInputs = 0;   // kernels whose original failed its own checks (generator problems)
  uint64_t ptxasHangs = 0;  // kernels ptxas did not finish (ptxas bugs: reported, not counted as failures)
  uint64_t pipelines = 0;   // pipelines checked
  uint64_t findings = 0;    // pipelines with a finding
  std::map<std::string, uint64_t> byVerdict;
  std::vector<std::string> lines;  // one per finding, bad input or ptxas hang: "seed 12 -O2: results-differ (DIR)"
  double seconds = 0;
};

CampaignSummary runCampaign(const CampaignOptions& options, const KernelSource& source);

// "N kernels, M pipelines, F mismatches, X kernels/s" and the verdict counts.
std::string summaryTable(const CampaignSummary& s);

}  // namespace ptxopt::fuzz
