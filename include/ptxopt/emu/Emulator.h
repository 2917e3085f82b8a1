// ptxrun's engine: executes PTX kernels on the CPU with 32-lane warps.
//
// Each warp keeps a reconvergence stack keyed on immediate post-dominators (N-way at
// brx.idx); calls get a frame with their own registers and reconvergence; CTA barriers follow
// the PTX rules for exited threads and for non-aligned barriers reached by part of a warp.
// Memory: global buffers and variables, shared (static and dynamic), per-thread local memory
// holding every call's frame, parameters, constants, and generic addresses over all of them.
// Faults (out-of-bounds or misaligned accesses, divergent aligned barriers, deadlocks, runaway
// runs, trap, unsupported instructions) end the run with a report naming the kernel, CTA,
// thread and PTX line.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptxopt/analysis/Profile.h"
#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt::emu {

struct RunOptions {
  unsigned jobs = 1;                 // CTAs run on this many host threads
  enum class Schedule { RoundRobin, Random } schedule = Schedule::RoundRobin;
  uint64_t seed = 1;                 // for the random schedule
  bool checkRaces = false;
  uint64_t maxInstructions = 1ull << 34;  // warp instructions per launch before a fault
  bool perLineMetrics = false;
  bool branchProfile = false;        // count each conditional branch's and brx.idx's outcomes (Metrics::branches)
  bool fastPaths = true;             // specialized loops for frequent instructions (a debugging switch)
};

// thread-instructions / (32 x warp-instructions); 1 when nothing was issued.
inline double simtEfficiency(uint64_t threadInstructions, uint64_t warpInstructions) {
  return warpInstructions ? static_cast<double>(threadInstructions) / (32.0 * static_cast<double>(warpInstructions)) : 1.0;
}

struct LineMetrics {
  uint64_t warpInstructions = 0;
  uint64_t threadInstructions = 0;
  uint64_t branches = 0;
  uint64_t divergentBranches = 0;
};

struct Metrics {
  uint64_t warpInstructions = 0;    // issued per warp; a predicated-off instruction counts
  uint64_t threadInstructions = 0;  // lane-instructions that executed
  uint64_t branches = 0;            // branch instructions issued (bra, brx.idx), per warp
  uint64_t divergentBranches = 0;   // of those, the ones whose lanes went different ways
  uint64_t barriers = 0;            // CTA barrier instructions issued, per warp
  uint32_t maxReconvergenceDepth = 0;
  std::map<uint32_t, LineMetrics> perLine;  // by PTX line, with RunOptions::perLineMetrics
  std::map<uint32_t, BranchCounts> branchOutcomes;  // by PTX line, with RunOptions::branchProfile
  // By PTX line: warp executions of a `bra.uni` whose lanes went different ways. The PTX asserts
  // they never do (ptxas emits no reconvergence for it); the emulator runs the split as for `bra`,
  // the GPU's behaviour is undefined.
  std::map<uint32_t, uint64_t> uniSplits;
  double simtEfficiency() const { return emu::simtEfficiency(threadInstructions, warpInstructions); }
  void add(const Metrics& o);
};

struct BufferResult {
  std::string name;
  ElemType type;
  std::vector<uint8_t> bytes;
};

struct RaceReport {
  std::string space;   // "shared" or "global"
  uint32_t lineA = 0, lineB = 0;
  std::string kindA, kindB;  // "read", "write", "atomic"
  std::string description;   // one line for people
  uint64_t occurrences = 0;
  // A write-write race in which both writes store the same bytes (Triton's reductions have many
  // lanes store one value): a lower severity, as compute-sanitizer's racecheck reports it.
  bool sameValue = false;
};

// What kind of fault ended a launch: an out-of-bounds or misaligned memory access (what a GPU
// reports as an illegal address), or anything else (trap, deadlock, unsupported instruction, ...).
enum class FaultKind : uint8_t { None, Address, Other };

struct RunResult {
  bool ok = false;
  std::string error;   // a problem with the launch itself (spec does not fit the kernel)
  std::string fault;   // a fault of the kernel
  FaultKind faultKind = FaultKind::None;
  std::vector<BufferResult> buffers;  // in parameter order
  std::string stdoutText;             // printf output, in CTA order
  Metrics metrics;
  std::vector<RaceReport> races;
};

// One element of a buffer as text ("-3", "0.5", "nan") and as its bit pattern ("0x3f000000").
std::string elementText(const BufferResult& b, size_t k);
std::string elementBits(const BufferResult& b, size_t k);
// The first difference between two runs of one launch: "buffer 'out' differs at index 17: 5
// (0x00000005) in A, 6 (0x00000006) in B", or a printf difference; empty when the buffers and
// the printf output are identical.
std::string firstDifference(const RunResult& a, const RunResult& b, const std::string& nameA, const std::string& nameB);

class Emulator {
 public:
  virtual ~Emulator() = default;
  // Verifies `m` and prepares every function of it for execution; nullptr with `error` set
  // (the verifier's `file:line:col: error:` lines) when it is malformed. `m` must outlive the
  // emulator.
  static std::unique_ptr<Emulator> create(const Module& m, std::string& error);
  virtual RunResult run(const LaunchSpec& spec, const RunOptions& options) = 0;
  // Instructions of the module that the emulator cannot execute (running one is a fault), as
  // "file:line: function: instruction (reason)" lines.
  virtual std::vector<std::string> unsupportedInstructions() const = 0;
};

}  // namespace ptxopt::emu
