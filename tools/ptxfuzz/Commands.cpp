#include "Commands.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "ptxopt/fuzz/Campaign.h"
#include "ptxopt/fuzz/Generator.h"
#include "ptxopt/fuzz/Mutator.h"
#include "ptxopt/fuzz/Reducer.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Process.h"

namespace ptxfuzz {

using namespace ptxopt;

void addSizeOption(CLI::App* cmd, std::string& size) {
  std::vector<std::string> names;
  for (fuzz::KernelSize k : {fuzz::KernelSize::Small, fuzz::KernelSize::Medium, fuzz::KernelSize::Large, fuzz::KernelSize::Random})
    names.emplace_back(fuzz::kernelSizeName(k));
  cmd->add_option("--size", size, "generated kernel size: small (10-60 instructions), medium (100-600), large (1,000-5,000) or random (a mix; default)")
      ->check(CLI::IsMember(names));
}

std::string findPtxas(const std::string& given, bool disabled) {
  if (disabled) return {};
  if (!given.empty()) return given;
  return findProgram("ptxas", {"/usr/local/cuda/bin"});
}

namespace {

bool parseSeeds(const std::string& text, uint64_t& first, uint64_t& last) {
  try {
    size_t dots = text.find("..");
    if (dots == std::string::npos) {
      first = last = std::stoull(text);
      return true;
    }
    first = std::stoull(text.substr(0, dots));
    last = std::stoull(text.substr(dots + 2));
    return first <= last;
  } catch (const std::exception&) {
    return false;
  }
}

void warnNoPtxas(const std::string& ptxas, bool disabled) {
  if (ptxas.empty())
    std::fprintf(stderr, "ptxfuzz: %s: the ptxas checks are SKIPPED\n", disabled ? "--no-ptxas" : "ptxas not found");
}

}  // namespace

// ---- run ----------------------------------------------------------------------------------

void addRun(CLI::App& app, RunCommand& c) {
  CLI::App* run = app.add_subcommand("run", "generate kernels, optimize them with pipelines, run both under the emulator and compare");
  run->add_option("--seeds", c.seeds, "seeds A..B (inclusive), or one seed");
  run->add_option("--passes", c.passes,
                  "pipelines to check, repeatable: -O1, -O2, -O3, a comma list of passes, random or random:N "
                  "(N random pipelines per seed); default: -O2 and random")
      ->allow_extra_args(false);
  run->add_option("--knob", c.setKnobs, "PASS.KNOB=VALUE: set in every pipeline checked, repeatable");
  run->add_option("--knobs", c.knobs, "random: random knob values in the random pipelines")->check(CLI::IsMember({"random", "default"}));
  run->add_option("-j", c.jobs, "seeds checked at once, each in its own process")->check(CLI::Range(1u, 256u));
  run->add_option("--out", c.outDir, "where reproducers of findings are written (default ptxfuzz-findings)");
  run->add_option("--ptxas", c.ptxas, "ptxas to assemble originals and outputs with (default: found)");
  run->add_flag("--no-ptxas", c.noPtxas, "do not assemble with ptxas");
  run->add_option("--timeout", c.timeout, "seconds one seed may take before it counts as a hang (default 120)");
  run->add_flag("--barrier-heavy", c.barrierHeavy, "generate four times the barriers, twice the shared-memory exchanges");
  run->add_flag("--ifelse-heavy", c.ifElseHeavy, "generate three times the conditionals, twice the arithmetic (if-conversion)");
  run->add_flag("--nesting-heavy", c.nestingHeavy, "generate conditionals inside conditionals: six times the nested ifs, longer arms, fewer loops and gotos (mask-regions)");
  run->add_flag("--switch-heavy", c.switchHeavy, "generate five times the switches, in more shapes, half of them assigning constants (switch-opt)");
  run->add_flag(
      "--async-copies", c.asyncCopies,
      "generate exchanges through cp.async (copy, commit_group, wait_group, barrier) where barriers are allowed");
  run->add_flag("--meld-heavy", c.meldHeavy,
                "generate divergent branches whose sides have one shape and different operands (meld)");
  run->add_option("--random-schedules", c.randomSchedules,
                  "also run both modules under N random warp schedules with the race check (default 0)");
  run->add_option("--ptxas-timeout", c.ptxasTimeout,
                  "seconds one ptxas run may take; beyond it the input counts as a ptxas hang, not a failure (default 30)");
  addSizeOption(run, c.size);
  run->add_option("--kernel", c.kernel, "check this PTX file instead of generated kernels (needs --launch)");
  run->add_option("--launch", c.launch, "the launch spec of --kernel");
  run->add_flag("-q,--quiet", c.quiet, "no progress lines");
}

int runRun(const RunCommand& c) {
  fuzz::CampaignOptions o;
  if (!parseSeeds(c.seeds, o.firstSeed, o.lastSeed)) {
    std::fprintf(stderr, "ptxfuzz: error: --seeds takes A..B or N, found '%s'\n", c.seeds.c_str());
    return kError;
  }
  std::vector<std::string> passes = c.passes.empty() ? std::vector<std::string>{"-O2", "random"} : c.passes;
  for (const std::string& p : passes) {
    std::string level = p.rfind("-O", 0) == 0 ? p.substr(2) : p.rfind("O", 0) == 0 && p.size() == 2 ? p.substr(1) : "";
    if (!level.empty() && level.size() == 1 && level[0] >= '0' && level[0] <= '3') {
      o.pipelines.push_back(fuzz::levelPipeline(static_cast<unsigned>(level[0] - '0')));
    } else if (p == "random") {
      ++o.randomPipelines;
    } else if (p.rfind("random:", 0) == 0) {
      o.randomPipelines += static_cast<unsigned>(std::strtoul(p.c_str() + 7, nullptr, 10));
    } else {
      fuzz::Pipeline pipeline;
      pipeline.label = p;
      pipeline.passes = splitList(p);
      for (const std::string& name : pipeline.passes)
        if (!findPass(name)) {
          std::fprintf(stderr, "ptxfuzz: error: unknown pass '%s' in --passes (see ptxopt --list-passes)\n", name.c_str());
          return kError;
        }
      o.pipelines.push_back(pipeline);
    }
  }
  o.randomKnobs = c.knobs == "random";
  for (const std::string& kv : c.setKnobs) {
    size_t dot = kv.find('.'), eq = kv.find('=');
    const std::vector<KnobSpec>* knobs = dot < eq && eq != std::string::npos ? findKnobs(kv.substr(0, dot)) : nullptr;
    const KnobSpec* spec = nullptr;
    if (knobs)
      for (const KnobSpec& k : *knobs)
        if (k.name == kv.substr(dot + 1, eq - dot - 1)) spec = &k;
    std::string why;
    if (!spec || !parseKnobValue(*spec, kv.substr(eq + 1), why)) {
      std::fprintf(stderr, "ptxfuzz: error: --knob takes PASS.KNOB=VALUE with a knob of ptxopt --list-passes, found '%s'%s%s\n",
                   kv.c_str(), why.empty() ? "" : ": ", why.c_str());
      return kError;
    }
    o.knobs[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  o.jobs = c.jobs;
  o.timeoutSeconds = c.timeout;
  o.outDir = c.outDir;
  o.harness.ptxas = findPtxas(c.ptxas, c.noPtxas);
  o.harness.ptxasTimeoutSeconds = c.ptxasTimeout;
  o.harness.randomSchedules = c.randomSchedules;
  warnNoPtxas(o.harness.ptxas, c.noPtxas);

  fuzz::KernelSource source;
  std::string givenPtx;
  emu::LaunchSpec givenSpec;
  if (!c.kernel.empty() || !c.launch.empty()) {
    std::string error;
    if (c.kernel.empty() || c.launch.empty()) {
      std::fprintf(stderr, "ptxfuzz: error: --kernel and --launch go together\n");
      return kError;
    }
    if (!readFile(c.kernel, givenPtx, error) || !emu::loadLaunchSpec(c.launch, givenSpec, error)) {
      std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
      return kError;
    }
    o.firstSeed = o.lastSeed = 0;
    std::string name = c.kernel.substr(c.kernel.find_last_of('/') + 1);
    source.make = [&, name](uint64_t, std::string& n, std::string& ptx, emu::LaunchSpec& spec, std::string&) {
      n = name.substr(0, name.rfind(".ptx"));
      ptx = givenPtx;
      spec = givenSpec;
      return true;
    };
  } else {
    fuzz::GeneratorOptions g;
    g.size = *fuzz::parseKernelSize(c.size);
    g.barrierHeavy = c.barrierHeavy;
    g.ifElseHeavy = c.ifElseHeavy;
    g.switchHeavy = c.switchHeavy;
    g.nestingHeavy = c.nestingHeavy;
    g.asyncCopies = c.asyncCopies;
    g.meldHeavy = c.meldHeavy;
    source.make = [g](uint64_t seed, std::string& name, std::string& ptx, emu::LaunchSpec& spec, std::string& error) {
      fuzz::GeneratedKernel k = fuzz::generateKernel(seed, g);
      name = k.name;
      ptx = std::move(k.ptx);
      return emu::parseLaunchSpec(k.specJson, name + ".json", spec, error);
    };
  }

  auto lastPrint = std::chrono::steady_clock::now();
  uint64_t total = o.lastSeed - o.firstSeed + 1;
  size_t printedLines = 0;
  o.progress = [&](const fuzz::CampaignSummary& s) {
    for (; printedLines < s.lines.size(); ++printedLines) std::fprintf(stderr, "ptxfuzz: %s\n", s.lines[printedLines].c_str());
    auto now = std::chrono::steady_clock::now();
    if (c.quiet || now - lastPrint < std::chrono::seconds(2)) return;
    lastPrint = now;
    std::fprintf(stderr, "ptxfuzz: %llu/%llu seeds, %llu pipelines, %llu mismatches, %.1f kernels/s\n",
                 static_cast<unsigned long long>(s.kernels), static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(s.pipelines), static_cast<unsigned long long>(s.findings),
                 s.seconds > 0 ? static_cast<double>(s.kernels) / s.seconds : 0.0);
  };
  fuzz::CampaignSummary s = fuzz::runCampaign(o, source);
  for (; printedLines < s.lines.size(); ++printedLines) std::fprintf(stderr, "ptxfuzz: %s\n", s.lines[printedLines].c_str());
  std::fprintf(stderr, "%s\n", fuzz::summaryTable(s).c_str());
  return s.findings || s.badInputs ? kFindings : kOk;
}

// ---- reduce -------------------------------------------------------------------------------

void addReduce(CLI::App& app, ReduceCommand& c) {
  CLI::App* reduce = app.add_subcommand("reduce", "shrink a reproducer directory while its finding persists");
  reduce->add_option("dir", c.dir, "the reproducer directory (ptxfuzz run writes them)")->required();
  reduce->add_option("-o,--output", c.output, "write the reduced module here (default DIR/reduced.ptx, spec beside it as .json)");
  reduce->add_option("-j", c.jobs, "candidates checked at once")->check(CLI::Range(1u, 256u));
  reduce->add_option("--timeout", c.timeout, "seconds one candidate may take (default 60)");
  reduce->add_option("--ptxas", c.ptxas, "ptxas, for findings that are ptxas rejections or hangs (default: found)");
  reduce->add_option("--ptxas-timeout", c.ptxasTimeout, "seconds one ptxas run may take (default 30; a ptxas hang reduces faster with less)");
  reduce->add_flag("--no-ptxas", c.noPtxas, "never run ptxas");
}

int runReduce(const ReduceCommand& c) {
  fuzz::Reproducer r;
  std::string error;
  if (!fuzz::readReproducer(c.dir, r, error)) {
    std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
    return kError;
  }
  fuzz::ReduceOptions o;
  o.jobs = c.jobs;
  o.timeoutSeconds = c.timeout;
  o.harness.ptxas = findPtxas(c.ptxas, c.noPtxas);
  o.harness.ptxasTimeoutSeconds = c.ptxasTimeout;
  o.log = [](const std::string& line) { std::fprintf(stderr, "ptxfuzz: %s\n", line.c_str()); };
  fuzz::ReduceResult result;
  if (!fuzz::reduceReproducer(r, o, result, error)) {
    std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
    return kError;
  }
  std::string ptxPath = c.output.empty() ? c.dir + "/reduced.ptx" : c.output;
  std::string specPath = ptxPath.substr(0, ptxPath.rfind(".ptx")) + ".json";
  if (!writeFile(ptxPath, result.ptx, error) || !writeFile(specPath, emu::launchSpecToJson(result.spec), error)) {
    std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
    return kError;
  }
  std::printf("%s: reduced from %llu to %llu instructions (%llu candidates tried, %llu kept); still %s under %s\n",
              ptxPath.c_str(), static_cast<unsigned long long>(result.instructionsBefore),
              static_cast<unsigned long long>(result.instructionsAfter), static_cast<unsigned long long>(result.candidatesTried),
              static_cast<unsigned long long>(result.candidatesKept), fuzz::verdictName(result.verdict),
              r.pipeline.arguments().c_str());
  return kOk;
}

// ---- mutate -------------------------------------------------------------------------------

void addMutate(CLI::App& app, MutateCommand& c) {
  CLI::App* mutate = app.add_subcommand("mutate", "make broken variants of valid PTX; with --campaign, measure how often ptxopt and ptxas agree on them");
  mutate->add_option("inputs", c.inputs, "a PTX file (with --campaign: PTX files and directories)")->required();
  mutate->add_option("--seed", c.seed, "which mutant (the same seed gives the same mutant)");
  mutate->add_option("-o,--output", c.output, "where to write the mutant ('-': standard output)");
  std::string kinds;
  for (size_t k = 0; k < static_cast<size_t>(fuzz::MutationKind::NumKinds); ++k)
    kinds += (kinds.empty() ? "" : ", ") + std::string(fuzz::mutationKindName(static_cast<fuzz::MutationKind>(k)));
  mutate->add_option("--kind", c.kind, "the kind of mutation: " + kinds);
  mutate->add_option("--campaign", c.campaign, "make this many mutants of the inputs, judge each with ptxas and ptxopt, print the agreement per kind");
  mutate->add_option("-j", c.jobs, "mutants judged at once")->check(CLI::Range(1u, 256u));
  mutate->add_option("--out", c.outDir, "write the mutants ptxas and ptxopt disagree on here");
  mutate->add_option("--ptxas", c.ptxas, "ptxas (default: found)");
  mutate->add_option("--max-bytes", c.maxBytes, "campaign: skip input files larger than this (ptxas is slow on them; default 65536)");
}

int runMutate(const MutateCommand& c) {
  std::optional<fuzz::MutationKind> kind;
  if (!c.kind.empty() && !(kind = fuzz::parseMutationKind(c.kind))) {
    std::fprintf(stderr, "ptxfuzz: error: unknown mutation kind '%s'\n", c.kind.c_str());
    return kError;
  }
  std::string error;
  if (c.campaign == 0) {
    if (c.inputs.size() != 1) {
      std::fprintf(stderr, "ptxfuzz: error: mutate takes one PTX file (or --campaign N with several)\n");
      return kError;
    }
    std::string text;
    if (!readFile(c.inputs[0], text, error)) {
      std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
      return kError;
    }
    fuzz::Mutant m;
    if (!fuzz::mutatePtx(text, c.seed, kind, m)) {
      std::fprintf(stderr, "ptxfuzz: error: %s offers no place for that mutation\n", c.inputs[0].c_str());
      return kError;
    }
    std::fprintf(stderr, "ptxfuzz: %s, line %u: '%s' -> '%s'\n", fuzz::mutationKindName(m.kind), m.line, m.before.c_str(), m.after.c_str());
    if (!writeFile(c.output, m.text, error)) {
      std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
      return kError;
    }
    return kOk;
  }
  fuzz::MutationCampaignOptions o;
  for (const std::string& in : c.inputs)
    for (const std::string& f : filesWithSuffix(in, ".ptx", true)) {
      std::error_code ec;
      if (std::filesystem::file_size(f, ec) <= c.maxBytes && !ec) o.files.push_back(f);
    }
  if (o.files.empty()) {
    std::fprintf(stderr, "ptxfuzz: error: no PTX file of at most %llu bytes under the inputs\n",
                 static_cast<unsigned long long>(c.maxBytes));
    return kError;
  }
  o.ptxas = findPtxas(c.ptxas, false);
  if (o.ptxas.empty()) {
    std::fprintf(stderr, "ptxfuzz: error: ptxas not found (give --ptxas): the mutation campaign compares ptxopt with ptxas\n");
    return kError;
  }
  o.count = c.campaign;
  o.seed = c.seed;
  o.jobs = c.jobs;
  o.outDir = c.outDir;
  fuzz::MutationReport r = fuzz::runMutationCampaign(o);
  std::printf("%s", fuzz::mutationTable(r).c_str());
  for (const std::string& d : r.disagreements) std::printf("disagreement: %s\n", d.c_str());
  uint64_t falseRejects = 0, missed = 0, rejects = 0;
  for (size_t k = 0; k < static_cast<size_t>(fuzz::MutationKind::NumKinds); ++k) {
    falseRejects += r.byKind[k].falseRejects;
    if (fuzz::mustAgreeOnRejection(static_cast<fuzz::MutationKind>(k))) {
      missed += r.byKind[k].missed;
      rejects += r.byKind[k].ptxasRejects;
    }
  }
  std::printf("%zu files, %.1f s; ptxopt rejects %llu of the %llu mutants ptxas rejects for operand count, operand kind, "
              "undeclared names and missing labels, and %llu mutants ptxas accepts\n",
              o.files.size(), r.seconds, static_cast<unsigned long long>(rejects - missed), static_cast<unsigned long long>(rejects),
              static_cast<unsigned long long>(falseRejects));
  // The targets: no valid mutant rejected, and at least 99% of the must-agree rejections.
  bool ok = falseRejects == 0 && (rejects == 0 || (rejects - missed) * 100 >= rejects * 99);
  return ok ? kOk : kFindings;
}

}  // namespace ptxfuzz
