#include "ptxopt/passes/PassManager.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <optional>
#include <thread>

#include "ptxopt/analysis/AnalysisPrinter.h"
#include "ptxopt/analysis/CfgDot.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt {

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

bool PassManager::configure(const PassManagerOptions& options, std::string& error) {
  options_ = options;
  passes_.clear();
  knobValues_.clear();
  for (const std::string& name : options.disabled)
    if (!findPass(name)) {
      error = "unknown pass '" + name + "' in the disabled passes (see --list-passes)";
      return false;
    }
  auto known = [&](const std::string& name) -> const PassInfo* {
    const PassInfo* p = findPass(name);
    if (!p) error = "unknown pass '" + name + "' (see --list-passes)";
    return p;
  };
  for (const std::string& name : options.printAfter)
    if (!known(name)) return false;
  for (const std::string& name : options.dotAfter)
    if (!known(name)) return false;
  // Knobs: "pass.knob" must name a declared knob and parse for its type.
  std::map<std::string, std::map<std::string, std::string>> perPass;
  for (const auto& [key, value] : options.knobs) {
    size_t dot = key.find('.');
    if (dot == std::string::npos) {
      error = "a knob is named PASS.KNOB, found '" + key + "'";
      return false;
    }
    std::string passName = key.substr(0, dot), knobName = key.substr(dot + 1);
    const std::vector<KnobSpec>* specs = findKnobs(passName);
    if (!specs) {
      error = "unknown pass '" + passName + "' (see --list-passes)";
      return false;
    }
    const KnobSpec* spec = nullptr;
    for (const KnobSpec& k : *specs)
      if (k.name == knobName) spec = &k;
    if (!spec) {
      error = (passName == kPtxasKnobOwner ? "the ptxas model" : "pass '" + passName + "'") + std::string(" has no knob '") +
              knobName + "' (see --list-passes)";
      return false;
    }
    std::string why;
    if (!parseKnobValue(*spec, value, why)) {
      error = "knob " + key + ": " + why;
      return false;
    }
    perPass[passName][knobName] = value;
  }
  ptxas_ = PtxasModel(KnobValues(PtxasModel::knobs(), perPass[std::string(kPtxasKnobOwner)]));
  for (const std::string& name : options.pipeline) {
    const PassInfo* p = known(name);
    if (!p) return false;
    if (options.disabled.count(name)) continue;
    passes_.push_back(p);
    knobValues_.emplace_back(p->knobs, perPass[name]);
  }
  return true;
}

namespace {

struct FunctionResult {
  bool ok = true;
  std::map<std::string, uint64_t> counts;
  std::vector<Remark> remarks;
  std::map<std::string, double> seconds;
  std::map<std::string, unsigned> analysisRuns;
  std::map<std::string, double> analysisSeconds;
  std::string printed;
  std::vector<std::pair<std::string, std::string>> dots;
  DiagEngine diags;
};

}  // namespace

PassRunResult PassManager::run(Module& m, DiagEngine& diags) {
  std::vector<Function*> work;
  for (auto& f : m.functions())
    if (f->hasBody) work.push_back(f.get());
  std::vector<FunctionResult> results(work.size());
  // Passes do not add or remove module symbols: collected once for --verify-each.
  std::optional<ModuleSymbols> moduleSymbols;
  if (options_.verifyEach) moduleSymbols.emplace(m);
  std::optional<CallSummaries> callSummaries;
  for (const PassInfo* p : passes_)
    if (p->usesCallSummaries && !callSummaries) callSummaries = computeCallSummaries(m);

  auto runOne = [&](size_t index) {
    Function& f = *work[index];
    FunctionResult& r = results[index];
    FunctionAnalysisManager am(f);
    // The profile's counts, bound to the input's branches before any pass changes them.
    std::optional<BranchCountsByInstruction> counts;
    if (options_.profile) counts = bindToInstructions(*options_.profile, f);
    struct Finish {  // the analyses' figures, however the function's pipeline ends
      FunctionAnalysisManager& am;
      FunctionResult& r;
      ~Finish() {
        for (const auto& [k, v] : am.runs()) r.analysisRuns[k] += v;
        for (const auto& [k, v] : am.seconds()) r.analysisSeconds[k] += v;
      }
    } finish{am, r};
    for (size_t k = 0; k < passes_.size(); ++k) {
      const PassInfo& info = *passes_[k];
      std::string name(info.name);
      if (options_.dotAfter.count(name))
        r.dots.emplace_back(dotFileStem(f) + ".before." + name, cfgToDot(f, am, std::string(f.name()) + " before " + name));
      PassContext ctx(info.name, f, knobValues_[k], ptxas_, callSummaries ? &*callSummaries : nullptr,
                      counts ? &*counts : nullptr, options_.remarks);
      auto start = std::chrono::steady_clock::now();
      PassResult result;
      if (info.skipsScopedFunctions && scopeSpansBlocks(f)) {
        ctx.count("scoped-functions");
        result = PassResult::unchanged();
      } else {
        try {
          result = info.create()->run(f, am, ctx);
        } catch (const std::exception& e) {
          result = PassResult::failure(std::string("internal error: ") + e.what());
        }
      }
      r.seconds[name] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (result.status == PassResult::Status::Failure) {
        r.diags.error(m.fileName, f.loc, "pass " + name + " failed on function '" + std::string(f.name()) + "': " + result.error);
        r.ok = false;
        return;
      }
      if (result.isChanged()) am.invalidate(result.preserved);
      for (const auto& [counter, n] : ctx.counts()) r.counts[name + "." + counter] += n;
      for (Remark& rem : ctx.remarks()) r.remarks.push_back(std::move(rem));
      if (options_.printAfterAll || options_.printAfter.count(name))
        r.printed += "// *** IR after " + name + " on " + std::string(f.name()) + " ***\n" + printFunction(f);
      if (options_.dotAfter.count(name))
        r.dots.emplace_back(dotFileStem(f) + ".after." + name, cfgToDot(f, am, std::string(f.name()) + " after " + name));
      if (options_.verifyEach && !verifyFunction(f, r.diags, "after pass " + name, &*moduleSymbols)) {
        r.ok = false;
        return;
      }
      // A pass that claims to have kept an analysis it broke.
      if (options_.verifyEach && result.isChanged())
        for (const std::string& stale : staleAnalyses(f, am)) {
          r.diags.error(m.fileName, f.loc, "after pass " + name + ": in function '" + std::string(f.name()) +
                                               "': the pass says it preserved the " + stale +
                                               " analysis, which no longer matches the function");
          r.ok = false;
        }
      if (!r.ok) return;
    }
  };

  unsigned jobs = std::max(1u, std::min<unsigned>(options_.jobs, static_cast<unsigned>(work.size())));
  if (jobs <= 1) {
    for (size_t i = 0; i < work.size(); ++i) runOne(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t)
      threads.emplace_back([&] {
        for (size_t i = next++; i < work.size(); i = next++) runOne(i);
      });
    for (std::thread& t : threads) t.join();
  }

  PassRunResult out;
  for (FunctionResult& r : results) {
    out.ok &= r.ok;
    for (const auto& [k, v] : r.counts) out.counts[k] += v;
    for (Remark& rem : r.remarks) out.remarks.push_back(std::move(rem));
    for (const auto& [k, v] : r.seconds) out.seconds[k] += v;
    for (const auto& [k, v] : r.analysisRuns) out.analysisRuns[k] += v;
    for (const auto& [k, v] : r.analysisSeconds) out.analysisSeconds[k] += v;
    out.printed += r.printed;
    for (auto& d : r.dots) out.dots.push_back(std::move(d));
    for (const Diagnostic& d : r.diags.diagnostics()) diags.report(d.severity, d.file, d.loc, d.message);
  }
  return out;
}

}  // namespace ptxopt
