// ptxfuzz: the differential fuzzer's front end. Each subcommand is one function here; the
// work is in the library (ptxopt/fuzz/).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "Commands.h"
#include "ptxopt/fuzz/Generator.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Version.h"

namespace {

using namespace ptxopt;

using ptxfuzz::kError;
using ptxfuzz::kInternal;
using ptxfuzz::kOk;

// ---- gen ---------------------------------------------------------------------------------------

struct GenOptions {
  uint64_t seed = 1;
  uint64_t count = 1;
  std::string outDir = ".";
  std::string size = "random";
  bool noWarpSz = false;
  bool noApprox = false;
  bool noCalls = false;
  bool convergenceDependent = false;
  bool barrierHeavy = false;
  bool ifElseHeavy = false;
  bool switchHeavy = false;
  bool nestingHeavy = false;
  bool asyncCopies = false;
  bool meldHeavy = false;
  bool stats = false;
};

void addGen(CLI::App& app, GenOptions& o) {
  CLI::App* gen = app.add_subcommand("gen", "generate a random kernel and its launch spec: DIR/fuzz_<seed>.ptx and .json");
  gen->add_option("--seed", o.seed, "seed (the same seed gives the same files everywhere)");
  gen->add_option("--count", o.count, "generate this many kernels, seeds seed .. seed+count-1")->check(CLI::PositiveNumber);
  gen->add_option("-o,--output-dir", o.outDir, "directory to write into (created if missing)");
  ptxfuzz::addSizeOption(gen, o.size);
  gen->add_flag("--no-warp-sz", o.noWarpSz, "never read the warp size through WARP_SZ");
  gen->add_flag("--barrier-heavy", o.barrierHeavy, "four times the barriers, twice the shared-memory exchanges");
  gen->add_flag("--ifelse-heavy", o.ifElseHeavy, "three times the conditionals, twice the arithmetic (if-conversion)");
  gen->add_flag("--nesting-heavy", o.nestingHeavy, "conditionals inside conditionals: six times the nested ifs, longer arms, fewer loops and gotos");
  gen->add_flag("--switch-heavy", o.switchHeavy, "five times the switches, in more shapes, half of them assigning constants");
  gen->add_flag("--async-copies", o.asyncCopies,
                "exchanges through cp.async (copy, commit_group, wait_group, barrier)");
  gen->add_flag("--meld-heavy", o.meldHeavy, "divergent branches whose sides have one shape and different operands");
  gen->add_flag("--no-approx", o.noApprox, "no .approx or transcendental float operations");
  gen->add_flag("--no-calls", o.noCalls, "no .func callees");
  gen->add_flag("--convergence-dependent", o.convergenceDependent,
                "let results of collectives run by a possibly partial warp reach the output (they depend on "
                "where diverged lanes reconverge)");
  gen->add_flag("--stats", o.stats, "print one JSON line per kernel to stderr: size, instructions, shapes");
}

int runGen(const GenOptions& o) {
  fuzz::GeneratorOptions g;
  g.size = *fuzz::parseKernelSize(o.size);
  g.barrierHeavy = o.barrierHeavy;
  g.ifElseHeavy = o.ifElseHeavy;
  g.switchHeavy = o.switchHeavy;
  g.nestingHeavy = o.nestingHeavy;
  g.asyncCopies = o.asyncCopies;
  g.meldHeavy = o.meldHeavy;
  g.useWarpSz = !o.noWarpSz;
  g.approxMath = !o.noApprox;
  g.calls = !o.noCalls;
  g.convergenceDependentResults = o.convergenceDependent;
  std::string error;
  if (!makeDirectory(o.outDir, error)) {
    std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
    return kError;
  }
  for (uint64_t k = 0; k < o.count; ++k) {
    fuzz::GeneratedKernel kernel = fuzz::generateKernel(o.seed + k, g);
    std::string ptxPath = o.outDir + "/" + kernel.name + ".ptx";
    std::string specPath = o.outDir + "/" + kernel.name + ".json";
    if (!writeFile(ptxPath, kernel.ptx, error) || !writeFile(specPath, kernel.specJson, error)) {
      std::fprintf(stderr, "ptxfuzz: error: %s\n", error.c_str());
      return kError;
    }
    std::printf("%s\n%s\n", ptxPath.c_str(), specPath.c_str());
    if (o.stats) {
      std::string shapes;
      for (const auto& [name, n] : kernel.shapes)
        shapes += (shapes.empty() ? "" : ", ") + ("\"" + name + "\": " + std::to_string(n));
      std::fprintf(stderr, "{\"seed\": %llu, \"size\": \"%s\", \"instructions\": %u, \"shapes\": {%s}}\n",
                   static_cast<unsigned long long>(kernel.seed), fuzz::kernelSizeName(kernel.size),
                   kernel.instructions, shapes.c_str());
    }
  }
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    CLI::App app{"ptxfuzz: differential fuzzer for ptxopt (random kernels, run under ptxrun)"};
    app.set_version_flag("--version", std::string("ptxfuzz ") + kVersion);
    app.require_subcommand(1);
    GenOptions genOptions;
    addGen(app, genOptions);
    ptxfuzz::RunCommand runCommand;
    ptxfuzz::addRun(app, runCommand);
    ptxfuzz::ReduceCommand reduceCommand;
    ptxfuzz::addReduce(app, reduceCommand);
    ptxfuzz::MutateCommand mutateCommand;
    ptxfuzz::addMutate(app, mutateCommand);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e) == 0 ? kOk : kError;
    }
    if (app.got_subcommand("gen")) return runGen(genOptions);
    if (app.got_subcommand("run")) return ptxfuzz::runRun(runCommand);
    if (app.got_subcommand("reduce")) return ptxfuzz::runReduce(reduceCommand);
    if (app.got_subcommand("mutate")) return ptxfuzz::runMutate(mutateCommand);
    return kError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxfuzz: internal error: %s\n", e.what());
    return kInternal;
  }
}
