// The differential harness: optimize a kernel with a pipeline, then check, in this order, that
// the optimizer did not crash, that --verify-each holds and the output reads back, that ptxas
// accepts the output (when a ptxas is given), that the emulator gives bit-identical buffers,
// the same printf output and the same fault (or none), and that the optimized run is race-free
// where the original was. The model is Binaryen's --fuzz-exec.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptxopt/emu/Emulator.h"
#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/PassManager.h"

namespace ptxopt::fuzz {

// A pass list with knob values: an -O level or a random one.
struct Pipeline {
  std::string label;                         // "-O2", "random"
  std::vector<std::string> passes;
  std::map<std::string, std::string> knobs;  // "pass.knob" -> value
  // The cost models see the branch profile of the launch under test, taken on the original
  // (ptxrun --profile-out, then ptxopt --profile-use).
  bool profileUse = false;
  // The ptxopt arguments that run it: "--passes=branch-opt,dce --knob=branch-opt.max-thread-depth=3"
  // (and "--profile-use=profile.json").
  std::string arguments() const;
  // Reads what `arguments` wrote (the pipeline.txt of a reproducer).
  static bool parse(const std::string& text, Pipeline& out, std::string& error);
  // The pass manager's options that run it.
  PassManagerOptions managerOptions() const;
};

Pipeline levelPipeline(unsigned level);
// A random order of the pipeline passes (testing aids never), each possibly repeated, with
// random knob values when `randomKnobs`. Same seed, same pipeline.
Pipeline randomPipeline(uint64_t seed, bool randomKnobs);

enum class Verdict : uint8_t {
  Ok,
  BadInput,        // the original does not verify, ptxas rejects it, or its run faults or races
  PtxasHangsOnInput,  // ptxas does not finish the original within its limit (a ptxas bug, not ours)
  Crash,           // the optimizer died (found by running it in a child process)
  Hang,            // the optimizer or a run took longer than the time limit
  VerifierFailed,  // --verify-each or reading the printed output back failed
  PtxasRejected,   // ptxas rejects the optimized output
  PtxasTimedOut,   // ptxas does not finish the optimized output, though it finished the original
  ResultsDiffer,   // buffers differ
  PrintfDiffers,
  FaultDiffers,    // the optimized run faults where the original did not, or the other way
  RaceIntroduced,  // the optimized run races where the original did not
  UniSplit,        // the optimized run splits a warp at a bra.uni (the PTX asserts it cannot; the
                   // emulator runs it as a bra, the GPU's behaviour is undefined)
};
const char* verdictName(Verdict v);
constexpr Verdict kLastVerdict = Verdict::UniSplit;
// Failures that are the optimizer's fault (all but Ok and the two verdicts on the input).
inline bool isFinding(Verdict v) {
  return v != Verdict::Ok && v != Verdict::BadInput && v != Verdict::PtxasHangsOnInput;
}
// The verdict named `name` (verdictName), or false.
bool verdictFromName(const std::string& name, Verdict& out);

struct HarnessOptions {
  std::string ptxas;            // path of ptxas; empty: no ptxas checks
  std::string ptxasArch = "sm_90";
  unsigned ptxasTimeoutSeconds = 30;  // one ptxas run; beyond it: PtxasHangsOnInput / PtxasTimedOut
  uint64_t maxInstructions = uint64_t{1} << 24;  // warp instructions per launch
  bool checkRaces = true;
  // Also run both modules under this many random warp schedules (seeds 1..N) with the race
  // check: the optimized run must not race where the original did not, and must give the same
  // results.
  unsigned randomSchedules = 0;
};

struct Outcome {
  Verdict verdict = Verdict::Ok;
  std::string detail;           // one paragraph for people (the first difference, the diagnostic)
  std::string optimizedPtx;     // when the optimizer produced something
  std::string originalOutput;   // the buffers and printf output of both runs, as text
  std::string optimizedOutput;
};

// One kernel under test: its PTX and launch, loaded and run once; then any number of
// pipelines checked against that first run. Everything runs in this process: run it in a
// child (runInChild) when a crash must be survived.
class KernelUnderTest {
 public:
  KernelUnderTest(std::string name, std::string ptx, emu::LaunchSpec spec, HarnessOptions options);
  ~KernelUnderTest();
  // The original: must verify, pass ptxas and run without a fault or race (else BadInput).
  Outcome checkOriginal();
  // Its first half, without the run: the original verifies and ptxas accepts it (Ok), rejects
  // it (BadInput) or does not finish it (PtxasHangsOnInput).
  Outcome checkLoadsAndAssembles();
  // Optimizes a fresh copy of the original with `pipeline` and compares.
  Outcome checkPipeline(const Pipeline& pipeline);

  const std::string& name() const { return name_; }
  const std::string& ptx() const { return ptx_; }
  const emu::LaunchSpec& spec() const { return spec_; }
  const HarnessOptions& options() const { return options_; }

 private:
  std::string name_, ptx_;
  emu::LaunchSpec spec_;
  HarnessOptions options_;
  std::unique_ptr<Module> module_;
  std::unique_ptr<emu::Emulator> emulator_;
  emu::RunResult baseline_;
  BranchProfile profile_;  // of the original's run, for pipelines with profileUse
  std::vector<emu::RunResult> randomBaselines_;  // under the random schedules, seeds 1..N
  bool ready_ = false;
};

// The run's buffers and printf output as text ("out[3] = 7"), for reproducers.
std::string describeRun(const emu::RunResult& r);

// Assembles `ptx` with ptxas (through a temporary file), killed after `timeoutSeconds`.
struct PtxasResult {
  enum class Status { Accepted, Rejected, TimedOut } status = Status::Accepted;
  std::string text;  // what ptxas said when it rejected the module
  bool accepted() const { return status == Status::Accepted; }
};
PtxasResult runPtxas(const std::string& ptxas, const std::string& arch, const std::string& ptx,
                     unsigned timeoutSeconds);

// A reproducer directory: original.ptx, spec.json, pipeline.txt, optimized.ptx (when there is
// one), original.out and optimized.out, verdict.txt (the verdict and the first difference),
// and repro.sh (the commands that show it). Returns false with `error` set when it cannot be
// written.
bool writeReproducer(const std::string& dir, const KernelUnderTest& kernel, const Pipeline& pipeline,
                     const Outcome& outcome, std::string& error);

struct Reproducer {
  std::string ptx;
  emu::LaunchSpec spec;
  Pipeline pipeline;
  Verdict verdict = Verdict::Ok;
};
bool readReproducer(const std::string& dir, Reproducer& out, std::string& error);

}  // namespace ptxopt::fuzz
