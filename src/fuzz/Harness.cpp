#include "ptxopt/fuzz/Harness.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ptxopt/passes/PassManager.h"
#include "ptxopt/passes/PtxasModel.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Process.h"

namespace ptxopt::fuzz {

// ---- pipelines ----------------------------------------------------------------------------

std::string Pipeline::arguments() const {
  std::string out = "--passes=";
  for (size_t k = 0; k < passes.size(); ++k) out += (k ? "," : "") + passes[k];
  for (const auto& [knob, value] : knobs) out += " --knob=" + knob + "=" + value;
  if (profileUse) out += " --profile-use=profile.json";
  return out;
}

bool Pipeline::parse(const std::string& text, Pipeline& out, std::string& error) {
  out = Pipeline{};
  out.label = "reproducer";
  std::istringstream in(text);
  std::string word;
  bool sawPasses = false;
  while (in >> word) {
    if (word.rfind("--passes=", 0) == 0) {
      out.passes = splitList(word.substr(9));
      sawPasses = true;
    } else if (word.rfind("--knob=", 0) == 0) {
      std::string kv = word.substr(7);
      size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        error = "a knob is --knob=PASS.KNOB=VALUE, found '" + word + "'";
        return false;
      }
      out.knobs[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (word.rfind("--profile-use=", 0) == 0) {
      out.profileUse = true;
    } else {
      error = "unexpected '" + word + "' in a pipeline (--passes=LIST, --knob=PASS.KNOB=VALUE, --profile-use=FILE)";
      return false;
    }
  }
  if (!sawPasses) {
    error = "the pipeline has no --passes=LIST";
    return false;
  }
  return true;
}

PassManagerOptions Pipeline::managerOptions() const {
  PassManagerOptions o;
  o.pipeline = passes;
  o.knobs = knobs;
  return o;
}

Pipeline levelPipeline(unsigned level) {
  Pipeline p;
  p.label = "-O" + std::to_string(level);
  for (std::string_view n : pipelineForLevel(level)) p.passes.emplace_back(n);
  return p;
}

Pipeline randomPipeline(uint64_t seed, bool randomKnobs) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x51ED27;
  auto below = [&](uint64_t n) { return n ? emu::splitmix64Next(state) % n : 0; };
  std::vector<const PassInfo*> candidates;
  for (const PassInfo& p : allPasses())
    if (!p.testingAid) candidates.push_back(&p);
  Pipeline out;
  out.label = "random";
  if (candidates.empty()) return out;
  size_t length = 1 + below(6);
  for (size_t k = 0; k < length; ++k) out.passes.emplace_back(candidates[below(candidates.size())]->name);
  // Drawn last, so that a seed's passes and knobs are what they were before profiles.
  auto drawProfile = [&] {
    out.profileUse = below(2) != 0;
    return out;
  };
  if (!randomKnobs) return drawProfile();
  static const char* kInts[] = {"0", "1", "2", "3", "4", "8", "16", "1000"};
  static const char* kFloats[] = {"0", "0.5", "1", "2", "10"};
  auto drawKnobs = [&](std::string_view owner, const std::vector<KnobSpec>& knobs) {
    for (const KnobSpec& k : knobs) {
      if (below(2) || k.unsound) continue;
      std::string key = std::string(owner) + "." + std::string(k.name);
      switch (k.type) {
        case KnobType::Int: out.knobs[key] = kInts[below(std::size(kInts))]; break;
        case KnobType::Bool: out.knobs[key] = below(2) ? "true" : "false"; break;
        case KnobType::Float: out.knobs[key] = kFloats[below(std::size(kFloats))]; break;
        case KnobType::String: break;  // names (functions to skip): the default
        case KnobType::Choice: {
          std::vector<std::string_view> words = knobChoices(k);
          out.knobs[key] = std::string(words[below(words.size())]);
          break;
        }
      }
    }
  };
  for (const std::string& name : out.passes) drawKnobs(name, findPass(name)->knobs);
  drawKnobs(kPtxasKnobOwner, PtxasModel::knobs());  // the model every pass asks
  return drawProfile();
}

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "ok";
    case Verdict::BadInput: return "bad-input";
    case Verdict::PtxasHangsOnInput: return "ptxas-hangs-on-input";
    case Verdict::Crash: return "crash";
    case Verdict::Hang: return "hang";
    case Verdict::VerifierFailed: return "verifier-failed";
    case Verdict::PtxasRejected: return "ptxas-rejected";
    case Verdict::PtxasTimedOut: return "ptxas-timed-out";
    case Verdict::ResultsDiffer: return "results-differ";
    case Verdict::PrintfDiffers: return "printf-differs";
    case Verdict::FaultDiffers: return "fault-differs";
    case Verdict::RaceIntroduced: return "race-introduced";
    case Verdict::UniSplit: return "uni-split";
  }
  return "?";
}

bool verdictFromName(const std::string& name, Verdict& out) {
  for (uint8_t v = 0; v <= static_cast<uint8_t>(kLastVerdict); ++v)
    if (name == verdictName(static_cast<Verdict>(v))) {
      out = static_cast<Verdict>(v);
      return true;
    }
  return false;
}

// ---- running ------------------------------------------------------------------------------

namespace {

Outcome verdict(Verdict v, std::string detail) {
  Outcome o;
  o.verdict = v;
  o.detail = std::move(detail);
  return o;
}

// Schedule 0 is round-robin; k >= 1 the random schedule with seed k.
emu::RunOptions runOptions(const HarnessOptions& h, unsigned schedule = 0) {
  emu::RunOptions r;
  r.jobs = 1;
  r.checkRaces = h.checkRaces || schedule > 0;
  r.maxInstructions = h.maxInstructions;
  if (schedule) {
    r.schedule = emu::RunOptions::Schedule::Random;
    r.seed = schedule;
  }
  return r;
}

std::string racesText(const emu::RunResult& r) {
  std::string out;
  for (const emu::RaceReport& race : r.races) out += race.description + "\n";
  return out;
}

}  // namespace

std::string describeRun(const emu::RunResult& r) {
  std::string out;
  if (!r.fault.empty()) out += "fault: " + r.fault + "\n";
  for (const emu::BufferResult& b : r.buffers) {
    size_t n = b.bytes.size() / std::max(1u, emu::elemBytes(b.type));
    out += "buffer " + b.name + " (" + emu::elemTypeName(b.type) + ", " + std::to_string(n) + " elements)\n";
    for (size_t i = 0; i < n; ++i)
      out += b.name + "[" + std::to_string(i) + "] = " + emu::elementText(b, i) + " (" + emu::elementBits(b, i) + ")\n";
  }
  if (!r.stdoutText.empty()) out += "printf output:\n" + r.stdoutText;
  return out;
}

PtxasResult runPtxas(const std::string& ptxas, const std::string& arch, const std::string& ptx,
                     unsigned timeoutSeconds) {
  PtxasResult out;
  auto rejected = [&](std::string text) {
    out.status = PtxasResult::Status::Rejected;
    out.text = std::move(text);
    return out;
  };
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/ptxfuzz-XXXXXX.ptx";
  int fd = mkstemps(path.data(), 4);
  if (fd < 0) return rejected("cannot create a temporary file for ptxas");
  close(fd);
  std::string error;
  if (!writeFile(path, ptx, error)) return rejected(error);
  ProcessResult r = runProcess({ptxas, "-arch=" + arch, path, "-o", "/dev/null"}, timeoutSeconds);
  std::remove(path.c_str());
  if (r.ok()) return out;
  if (r.end == ProcessResult::End::TimedOut) {
    out.status = PtxasResult::Status::TimedOut;
    out.text = "ptxas did not finish within " + std::to_string(timeoutSeconds) + " s";
    return out;
  }
  std::string text = r.err.empty() ? r.out : r.err;
  return rejected(text.empty() ? "ptxas ended by " + r.describe() : text);
}

KernelUnderTest::KernelUnderTest(std::string name, std::string ptx, emu::LaunchSpec spec, HarnessOptions options)
    : name_(std::move(name)), ptx_(std::move(ptx)), spec_(std::move(spec)), options_(std::move(options)) {}

KernelUnderTest::~KernelUnderTest() = default;

Outcome KernelUnderTest::checkLoadsAndAssembles() {
  DiagEngine diags;
  module_ = loadModule(ptx_, name_ + ".ptx", diags);
  if (!module_) return verdict(Verdict::BadInput, "the original does not load:\n" + diags.str());
  if (!options_.ptxas.empty()) {
    PtxasResult p = runPtxas(options_.ptxas, options_.ptxasArch, ptx_, options_.ptxasTimeoutSeconds);
    if (p.status == PtxasResult::Status::TimedOut)
      return verdict(Verdict::PtxasHangsOnInput, "on the original: " + p.text);
    if (!p.accepted()) return verdict(Verdict::BadInput, "ptxas rejects the original: " + p.text);
  }
  return verdict(Verdict::Ok, {});
}

Outcome KernelUnderTest::checkOriginal() {
  Outcome assembled = checkLoadsAndAssembles();
  if (assembled.verdict != Verdict::Ok) return assembled;
  std::string error;
  emulator_ = emu::Emulator::create(*module_, error);
  if (!emulator_) return verdict(Verdict::BadInput, "the emulator cannot load the original: " + error);
  emu::RunOptions first = runOptions(options_);
  first.branchProfile = true;
  baseline_ = emulator_->run(spec_, first);
  if (!baseline_.error.empty()) return verdict(Verdict::BadInput, "the launch does not fit the original: " + baseline_.error);
  if (!baseline_.fault.empty()) return verdict(Verdict::BadInput, "the original faults: " + baseline_.fault);
  if (!baseline_.races.empty()) return verdict(Verdict::BadInput, "the original races:\n" + racesText(baseline_));
  if (!baseline_.metrics.uniSplits.empty())
    return verdict(Verdict::BadInput, "the original splits a warp at the bra.uni of line " +
                                          std::to_string(baseline_.metrics.uniSplits.begin()->first));
  profile_ = profileFromOutcomes(*module_, baseline_.metrics.branchOutcomes);
  profile_.kernel = spec_.kernel;
  for (unsigned k = 1; k <= options_.randomSchedules; ++k)
    randomBaselines_.push_back(emulator_->run(spec_, runOptions(options_, k)));
  ready_ = true;
  return verdict(Verdict::Ok, {});
}

Outcome KernelUnderTest::checkPipeline(const Pipeline& pipeline) {
  if (!ready_) return verdict(Verdict::BadInput, "the original was not checked, or failed its check");
  DiagEngine diags;
  std::unique_ptr<Module> m = loadModule(ptx_, name_ + ".ptx", diags);
  PassManagerOptions pmo = pipeline.managerOptions();
  pmo.verifyEach = true;
  PassManager pm;
  std::string error;
  if (!pm.configure(pmo, error)) return verdict(Verdict::BadInput, "the pipeline does not configure: " + error);
  if (pipeline.profileUse) pm.setProfile(&profile_);
  PassRunResult pr = pm.run(*m, diags);
  if (!pr.ok) return verdict(Verdict::VerifierFailed, diags.str());
  Outcome out;
  out.optimizedPtx = printModule(*m);
  auto fail = [&](Verdict v, std::string detail) {
    out.verdict = v;
    out.detail = std::move(detail);
    return out;
  };
  DiagEngine back;
  std::unique_ptr<Module> reread = loadModule(out.optimizedPtx, name_ + ".optimized.ptx", back);
  if (!reread) return fail(Verdict::VerifierFailed, "the optimized output does not read back:\n" + back.str());
  if (!options_.ptxas.empty()) {
    PtxasResult p = runPtxas(options_.ptxas, options_.ptxasArch, out.optimizedPtx, options_.ptxasTimeoutSeconds);
    if (p.status == PtxasResult::Status::TimedOut)
      return fail(Verdict::PtxasTimedOut, "on the optimized output, though not on the original: " + p.text);
    if (!p.accepted()) return fail(Verdict::PtxasRejected, p.text);
  }
  std::unique_ptr<emu::Emulator> emulator = emu::Emulator::create(*reread, error);
  if (!emulator) return fail(Verdict::VerifierFailed, "the emulator cannot load the optimized output: " + error);
  emu::RunResult r = emulator->run(spec_, runOptions(options_));
  auto withOutputs = [&](Verdict v, std::string detail) {
    out.originalOutput = describeRun(baseline_);
    out.optimizedOutput = describeRun(r);
    return fail(v, std::move(detail));
  };
  if (!r.error.empty()) return withOutputs(Verdict::FaultDiffers, "the launch does not fit the optimized module: " + r.error);
  if (!r.fault.empty()) return withOutputs(Verdict::FaultDiffers, "the optimized run faults, the original does not: " + r.fault);
  if (!r.races.empty()) return withOutputs(Verdict::RaceIntroduced, "the optimized run races, the original does not:\n" + racesText(r));
  if (!r.metrics.uniSplits.empty())
    return withOutputs(Verdict::UniSplit, "the optimized run splits a warp at the bra.uni of line " +
                                              std::to_string(r.metrics.uniSplits.begin()->first) +
                                              ", which the PTX declares uniform");
  std::string diff = emu::firstDifference(baseline_, r, "the original", "the optimized module");
  if (!diff.empty())
    return withOutputs(diff.rfind("the printf", 0) == 0 ? Verdict::PrintfDiffers : Verdict::ResultsDiffer, diff);
  // The random schedules: where the original ran clean, the optimized module must too.
  for (unsigned k = 1; k <= randomBaselines_.size(); ++k) {
    const emu::RunResult& base = randomBaselines_[k - 1];
    if (!base.error.empty() || !base.fault.empty() || !base.races.empty()) continue;
    emu::RunResult rr = emulator->run(spec_, runOptions(options_, k));
    std::string under = " (random schedule, seed " + std::to_string(k) + ")";
    if (!rr.fault.empty()) return withOutputs(Verdict::FaultDiffers, "the optimized run faults" + under + ": " + rr.fault);
    if (!rr.races.empty())
      return withOutputs(Verdict::RaceIntroduced, "the optimized run races" + under + ", the original does not:\n" + racesText(rr));
    std::string d = emu::firstDifference(base, rr, "the original", "the optimized module");
    if (!d.empty()) return withOutputs(Verdict::ResultsDiffer, d + under);
  }
  return out;
}

// ---- reproducers --------------------------------------------------------------------------

bool writeReproducer(const std::string& dir, const KernelUnderTest& kernel, const Pipeline& pipeline,
                     const Outcome& outcome, std::string& error) {
  if (!makeDirectory(dir, error)) return false;
  std::string verdictText = std::string(verdictName(outcome.verdict)) + "\n" + outcome.detail + "\n";
  bool ptxasHang = outcome.verdict == Verdict::PtxasHangsOnInput || outcome.verdict == Verdict::PtxasTimedOut;
  std::string script =
      ptxasHang ?
      "#!/bin/sh\n"
      "# Shows the finding: ptxas does not finish this module (PTXAS: the ptxas to run).\n"
      "cd \"$(dirname \"$0\")\"\n"
      "${PTXAS:-ptxas} -arch=" + kernel.options().ptxasArch + " " +
          (outcome.verdict == Verdict::PtxasHangsOnInput ? "original.ptx" : "optimized.ptx") + " -o /dev/null\n" :
      "#!/bin/sh\n"
      "# Shows the finding: optimize original.ptx with the pipeline, then run both on the launch.\n"
      "# PTXOPT_BIN: the directory with ptxopt and ptxrun (default: the PATH).\n"
      "bin=${PTXOPT_BIN:+$PTXOPT_BIN/}\n"
      "cd \"$(dirname \"$0\")\"\n" +
      std::string(pipeline.profileUse ? "${bin}ptxrun --launch spec.json original.ptx --profile-out=profile.json || exit\n" : "") +
      "${bin}ptxopt " + pipeline.arguments() + " --verify-each original.ptx -o optimized.ptx || exit\n"
      "${bin}ptxrun --launch spec.json original.ptx --check-races --compare optimized.ptx\n";
  struct File {
    const char* name;
    const std::string& text;
  };
  std::string pipelineText = pipeline.arguments() + "\n";
  std::string spec = emu::launchSpecToJson(kernel.spec());
  const File files[] = {
      {"original.ptx", kernel.ptx()}, {"spec.json", spec},
      {"pipeline.txt", pipelineText}, {"verdict.txt", verdictText},
      {"optimized.ptx", outcome.optimizedPtx}, {"original.out", outcome.originalOutput},
      {"optimized.out", outcome.optimizedOutput}, {"repro.sh", script},
  };
  for (const File& f : files) {
    if (f.text.empty()) continue;
    if (!writeFile(dir + "/" + f.name, f.text, error)) return false;
  }
  std::string sh = dir + "/repro.sh";
  chmod(sh.c_str(), 0755);
  return true;
}

bool readReproducer(const std::string& dir, Reproducer& out, std::string& error) {
  std::string specText, pipelineText, verdictText;
  if (!readFile(dir + "/original.ptx", out.ptx, error) || !readFile(dir + "/spec.json", specText, error) ||
      !readFile(dir + "/pipeline.txt", pipelineText, error))
    return false;
  if (!emu::parseLaunchSpec(specText, dir + "/spec.json", out.spec, error)) return false;
  if (!Pipeline::parse(pipelineText, out.pipeline, error)) {
    error = dir + "/pipeline.txt: " + error;
    return false;
  }
  out.verdict = Verdict::Ok;
  std::string ignored;
  if (readFile(dir + "/verdict.txt", verdictText, ignored)) {
    verdictFromName(verdictText.substr(0, verdictText.find('\n')), out.verdict);
  }
  return true;
}

}  // namespace ptxopt::fuzz
