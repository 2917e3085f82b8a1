// Passes: one per file under src/passes/, registered by name in PassRegistry.cpp, where the
// -O pipelines are listed too. A pass has typed knobs declared next to it, counts what it did
// (--stats), and explains each decision as a remark (--remarks=FILE).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"
#include "ptxopt/analysis/MemoryEffects.h"
#include "ptxopt/analysis/Profile.h"
#include "ptxopt/ir/Function.h"

namespace ptxopt {

// Choice: one of the words of KnobSpec::choices.
enum class KnobType : uint8_t { Int, Bool, Float, String, Choice };

struct KnobSpec {
  std::string_view name;  // "max-thread-depth"; on the command line "branch-opt.max-thread-depth"
  KnobType type;
  std::string_view defaultValue;
  std::string_view help;
  // A setting other than the default may miscompile on purpose (dead-sync.ignore-call-safety,
  // the seed's aggressive default): random fuzzing pipelines leave it at its default.
  bool unsound = false;
  std::string_view choices = {};  // Choice: the values, separated by spaces
};

// Parses a knob value for its type; false with `error` set when it does not parse.
bool parseKnobValue(const KnobSpec& spec, std::string_view text, std::string& error);
// The words a Choice knob may take, in the order KnobSpec::choices lists them.
std::vector<std::string_view> knobChoices(const KnobSpec& spec);

// The knob values of one pass: defaults overridden by --knob.
class KnobValues {
 public:
  KnobValues() = default;
  KnobValues(const std::vector<KnobSpec>& specs, const std::map<std::string, std::string>& overrides);
  int64_t getInt(std::string_view name) const;
  bool getBool(std::string_view name) const;
  double getFloat(std::string_view name) const;
  const std::string& getString(std::string_view name) const { return raw(name); }

 private:
  const std::string& raw(std::string_view name) const;
  std::map<std::string, std::string, std::less<>> values_;
};

// One decision of a pass, for --remarks (JSON lines).
struct Remark {
  std::string pass;
  std::string function;
  std::string block;
  std::string decision;
  std::string reason;
  std::vector<std::pair<std::string, double>> figures;
};

class PtxasModel;

// What a pass sees of the pass manager while it runs on one function.
class PassContext {
 public:
  PassContext(std::string_view pass, const Function& f, const KnobValues& knobs, const PtxasModel& ptxas,
              const CallSummaries* calls = nullptr, const BranchCountsByInstruction* counts = nullptr,
              bool remarks = true)
      : pass_(pass), function_(f), knobs_(knobs), ptxas_(ptxas), calls_(calls), branchCounts_(counts),
        remarksWanted_(remarks) {}
  const KnobValues& knobs() const { return knobs_; }
  // What ptxas does with control flow, with the `ptxas.*` knobs of this run (PtxasModel.h).
  const PtxasModel& ptxas() const { return ptxas_; }
  // What each function of the module may do to memory, computed before the pipeline changed
  // any function (PassInfo::usesCallSummaries); null when the pass did not ask for it.
  const CallSummaries* callSummaries() const { return calls_; }
  // The counts of --profile-use for `branch`, bound to the input's instructions before the
  // pipeline (bindToInstructions, analysis/Profile.h); null without a profile, without an
  // entry, or for a branch a pass created (nested-cond's merged branch, switch-opt's tests).
  const BranchCounts* branchCounts(const Instruction& branch) const;
  // Adds to a counter of this pass (`--stats` prints "pass.counter").
  void count(std::string_view counter, uint64_t n = 1) { counts_[std::string(counter)] += n; }
  // Records a decision for --remarks; nothing when the run collects none. A pass spells out a
  // remark's text only where `wantsRemarks()` (building them was 1% of ptxopt -O2).
  void remark(const BasicBlock* block, std::string decision, std::string reason,
              std::vector<std::pair<std::string, double>> figures = {});
  bool wantsRemarks() const { return remarksWanted_; }
  const std::map<std::string, uint64_t>& counts() const { return counts_; }
  std::vector<Remark>& remarks() { return remarks_; }

 private:
  std::string_view pass_;
  const Function& function_;
  const KnobValues& knobs_;
  const PtxasModel& ptxas_;
  const CallSummaries* calls_;
  const BranchCountsByInstruction* branchCounts_;
  std::map<std::string, uint64_t> counts_;
  std::vector<Remark> remarks_;
  bool remarksWanted_;
};

// What a pass did: failed (with a message; the pipeline stops), changed the function (and
// which cached analyses are still valid), or left it as it was.
struct PassResult {
  enum class Status : uint8_t { Failure, Changed, Unchanged } status = Status::Unchanged;
  PreservedAnalyses preserved = PreservedAnalyses::all();
  std::string error;

  static PassResult unchanged() { return {}; }
  static PassResult changed(PreservedAnalyses kept) { return {Status::Changed, std::move(kept), {}}; }
  static PassResult failure(std::string why) { return {Status::Failure, PreservedAnalyses::none(), std::move(why)}; }
  bool isChanged() const { return status == Status::Changed; }
};

class Pass {
 public:
  virtual ~Pass() = default;
  // Transforms `f`. The pass keeps the CFG edges up to date (buildCfg) when it changes
  // branches, and says which analyses it preserved; the pass manager drops the rest, and
  // under --verify-each checks that those it kept still match the function.
  virtual PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) = 0;
};

struct PassInfo {
  std::string_view name;
  std::string_view description;
  std::string_view seed;  // where the mechanism comes from ("003, OriBranchOpt"), or "-"
  std::vector<KnobSpec> knobs;
  std::function<std::unique_ptr<Pass>()> create;
  // A testing aid (break-edges, plant-bug): in no pipeline, never picked for a random fuzzing
  // pipeline; runs only when named with --passes.
  bool testingAid = false;
  // The pass reads PassContext::callSummaries. The pass manager computes them once per run,
  // before the functions are optimized (in parallel): a snapshot, sound as long as no pass adds
  // memory accesses or barriers to a function.
  bool usesCallSummaries = false;
  // The pass moves instructions between blocks without tracking `{ }` scopes: the pass manager
  // leaves a function alone in which a scope holds a label or a branch (scopeSpansBlocks),
  // counting `<pass>.scoped-functions`.
  bool skipsScopedFunctions = false;
};

// Whether a `{ }` scope of the function holds a label or a branch. Register names declared in
// such a scope mean other registers outside it, so code moved from one block into another may
// change what the names it prints refer to.
bool scopeSpansBlocks(const Function& f);

// Every pass, in a fixed order (PassRegistry.cpp).
const std::vector<PassInfo>& allPasses();
const PassInfo* findPass(std::string_view name);
// The name under which the model of ptxas (PtxasModel.h) takes knobs: `--knob ptxas.NAME=V`.
inline constexpr std::string_view kPtxasKnobOwner = "ptxas";
// The knobs of `owner` (a pass, or kPtxasKnobOwner); null when it names neither.
const std::vector<KnobSpec>* findKnobs(std::string_view owner);
// The pass names of an -O level (0..3); the one list of pipelines lives in PassRegistry.cpp.
const std::vector<std::string_view>& pipelineForLevel(unsigned level);

}  // namespace ptxopt
