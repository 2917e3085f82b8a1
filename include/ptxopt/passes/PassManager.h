// Runs a list of passes over every function of a module, with the instrumentation that
// `ptxopt` exposes: verification after each pass, printing after passes, timing, statistics,
// remarks, CFG pictures before and after a pass, and functions in parallel.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Pass.h"
#include "ptxopt/passes/PtxasModel.h"
#include "ptxopt/support/Diagnostics.h"

namespace ptxopt {

struct PassManagerOptions {
  std::vector<std::string> pipeline;               // pass names, in order
  std::set<std::string> disabled;                  // --disable-pass and PTXOPT_DISABLED_PASSES
  std::map<std::string, std::string> knobs;        // "pass.knob" -> value
  bool verifyEach = false;
  bool printAfterAll = false;
  std::set<std::string> printAfter;
  std::set<std::string> dotAfter;                  // passes to picture before and after
  unsigned jobs = 1;
  const BranchProfile* profile = nullptr;          // --profile-use, for the cost models
  bool remarks = true;                             // collect remarks (off when no one reads them)
};

struct PassRunResult {
  bool ok = true;                                  // false when --verify-each found a problem
  std::map<std::string, uint64_t> counts;          // "pass.counter" -> total
  std::vector<Remark> remarks;                     // in function order, then pass order
  std::map<std::string, double> seconds;           // per pass, summed over functions
  // Analyses computed (a pass that preserves one saves its recomputation) and the time spent
  // computing them, by analysis name, summed over functions.
  std::map<std::string, unsigned> analysisRuns;
  std::map<std::string, double> analysisSeconds;
  std::string printed;                             // --print-after output, in function order
  // --dot-cfg-after: (file stem, Graphviz text), e.g. ("k.before.branch-opt", "digraph ...").
  std::vector<std::pair<std::string, std::string>> dots;
};

class PassManager {
 public:
  // Checks pass and knob names and knob values; false with `error` set otherwise.
  bool configure(const PassManagerOptions& options, std::string& error);
  PassRunResult run(Module& m, DiagEngine& diags);
  // The pipeline that will run (configured list minus disabled passes).
  const std::vector<const PassInfo*>& passes() const { return passes_; }
  // The branch profile the passes see (PassContext::profile); it must outlive run().
  void setProfile(const BranchProfile* profile) { options_.profile = profile; }

 private:
  PassManagerOptions options_;
  std::vector<const PassInfo*> passes_;
  std::vector<KnobValues> knobValues_;
  PtxasModel ptxas_;
};

// Splits "a,b,c" into names, dropping empty ones.
std::vector<std::string> splitList(std::string_view text);

}  // namespace ptxopt
