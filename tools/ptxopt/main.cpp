// ptxopt: PTX in, optimized PTX out.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptxopt/analysis/AnalysisPrinter.h"
#include "ptxopt/analysis/CfgDot.h"
#include "ptxopt/ir/Stats.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/passes/PtxasModel.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Process.h"
#include "ptxopt/support/Version.h"
#include "../common/PipelineFlags.h"

namespace {

using ptxopt::PassInfo;

void listPasses() {
  std::string out = "passes:\n";
  auto listKnobs = [&](std::string_view owner, const std::vector<ptxopt::KnobSpec>& knobs) {
    for (const ptxopt::KnobSpec& k : knobs) {
      const char* type = k.type == ptxopt::KnobType::Int    ? "int"
                         : k.type == ptxopt::KnobType::Bool ? "bool"
                         : k.type == ptxopt::KnobType::String ? "string"
                         : k.type == ptxopt::KnobType::Choice ? "choice"
                                                              : "float";
      std::string shown = type;
      if (k.type == ptxopt::KnobType::Choice) shown = fmt::format("{}", fmt::join(ptxopt::knobChoices(k), "|"));
      out += fmt::format("  {:<12}   --knob {}.{}=<{}> (default {}): {}\n", "", owner, k.name, shown, k.defaultValue, k.help);
    }
  };
  for (const PassInfo& p : ptxopt::allPasses()) {
    out += fmt::format("  {:<12} {}\n", p.name, p.description);
    out += fmt::format("  {:<12} seed: {}\n", "", p.seed);
    listKnobs(p.name, p.knobs);
  }
  out += "the model of ptxas 13.0 that the passes' cost models share (not a pass):\n";
  out += fmt::format("  {:<12} what ptxas does with control flow, the same for every pass\n", ptxopt::kPtxasKnobOwner);
  listKnobs(ptxopt::kPtxasKnobOwner, ptxopt::PtxasModel::knobs());
  out += "pipelines:\n";
  for (unsigned level = 0; level <= 3; ++level) {
    std::string list;
    for (std::string_view n : ptxopt::pipelineForLevel(level)) list += (list.empty() ? "" : ", ") + std::string(n);
    out += fmt::format("  -O{}: {}\n", level, list.empty() ? "(no passes)" : list);
  }
  std::fputs(out.c_str(), stdout);
}

int run(int argc, char** argv) {
  CLI::App app{"ptxopt: reads PTX, optimizes its control flow, writes PTX that ptxas accepts"};
  std::string input;
  std::string output = "-";
  bool outputGiven = false;
  bool verify = false, stats = false, listPassesFlag = false, printAfterAll = false, timePasses = false, locSelf = false;
  std::string printAnalysis, dotDir, dotFormat = "dot";
  std::vector<std::string> printAfter, dotAfter;
  unsigned jobs = 1;
  ptxopt::tools::PipelineFlags flags;

  app.add_option("input", input, "PTX file to read ('-' for standard input)");
  app.add_option("-o,--output", output, "where to write the PTX ('-' for standard output)")
      ->each([&](const std::string&) { outputGiven = true; });
  ptxopt::tools::addPipelineFlags(app, flags);
  app.add_flag("--list-passes", listPassesFlag, "list the passes, their knobs and the -O pipelines");
  app.add_flag("--verify", verify, "check the IR at the end too (the input is always checked); exit 1 if it is malformed");
  app.add_flag("--stats", stats, "print functions, blocks, instructions, per-opcode counts and pass counters to stderr");
  app.add_flag("--print-after-all", printAfterAll, "print each function after every pass (stderr)");
  app.add_option("--print-after", printAfter, "print each function after this pass (stderr; repeatable)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_flag("--time-passes", timePasses, "print the time each pass took (stderr)");
  app.add_flag("--loc-self", locSelf,
               "replace the debug lines by a '.loc' per instruction naming its own line of the output "
               "(ptxas -lineinfo then maps SASS to these lines; see ptxopt-bench)");
  app.add_option("-j", jobs, "optimize this many functions in parallel (the output does not depend on it)")
      ->check(CLI::Range(1u, 256u));
  app.add_option("--print-analysis", printAnalysis,
                 "print analyses to stdout instead of the PTX: cfg, dom, postdom, domfrontier, loops, liveness, "
                 "reaching-defs, uniformity, memspace (comma list)");
  app.add_option("--dot-cfg", dotDir, "write one Graphviz file of each function's CFG into this directory");
  app.add_option("--dot-cfg-format", dotFormat, "dot (default), svg or png; svg and png run Graphviz 'dot'")
      ->check(CLI::IsMember({"dot", "svg", "png"}));
  app.add_option("--dot-cfg-after", dotAfter, "also picture each function before and after this pass (needs --dot-cfg)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.set_version_flag("--version", std::string("ptxopt ") + ptxopt::kVersion);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;  // usage errors exit 1 like every other error
  }
  if (listPassesFlag) {
    listPasses();
    return 0;
  }
  if (input.empty()) {
    std::fprintf(stderr, "ptxopt: error: no input file (run with --help for more information)\n");
    return 1;
  }
  if (!dotAfter.empty() && dotDir.empty()) {
    std::fprintf(stderr, "ptxopt: error: --dot-cfg-after needs --dot-cfg=DIR\n");
    return 1;
  }
  std::vector<std::string> analyses = ptxopt::splitList(printAnalysis);
  for (const std::string& a : analyses)
    if (!ptxopt::isPrintableAnalysis(a)) {
      std::fprintf(stderr, "ptxopt: error: unknown analysis '%s' for --print-analysis\n", a.c_str());
      return 1;
    }

  // The pass pipeline.
  ptxopt::PassManagerOptions pmo;
  std::string error;
  if (!ptxopt::tools::pipelineOptions(flags, pmo, error)) {
    std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
    return 1;
  }
  pmo.remarks = !flags.remarks.empty();
  pmo.printAfterAll = printAfterAll;
  for (const std::string& p : printAfter) pmo.printAfter.insert(p);
  for (const std::string& p : dotAfter) pmo.dotAfter.insert(p);
  pmo.jobs = jobs;
  ptxopt::PassManager pm;
  if (!pm.configure(pmo, error)) {
    std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
    return 1;
  }

  std::string text;
  if (!ptxopt::readFile(input, text, error)) {
    std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
    return 1;
  }
  std::string displayName = input == "-" ? "<stdin>" : input;
  ptxopt::DiagEngine diags;
  std::unique_ptr<ptxopt::Module> module = ptxopt::loadModule(text, displayName, diags);
  std::fputs(diags.str().c_str(), stderr);
  if (!module) return 1;
  ptxopt::ModuleStats statsBefore;
  if (stats) statsBefore = ptxopt::computeStats(*module);
  ptxopt::BranchProfile profile;
  if (!flags.profileUse.empty()) {
    std::string warnings;
    if (!ptxopt::tools::loadProfile(flags.profileUse, *module, text, displayName, /*onlyFunctionsOf=*/false, profile,
                                    warnings, error)) {
      std::fprintf(stderr, "%s%s\n", error.rfind(flags.profileUse, 0) == 0 ? "" : "ptxopt: error: ", error.c_str());
      return 1;
    }
    std::fputs(warnings.c_str(), stderr);
    pm.setProfile(&profile);
  }

  ptxopt::DiagEngine pdiags;
  ptxopt::PassRunResult result = pm.run(*module, pdiags);
  std::fputs(result.printed.c_str(), stderr);
  std::fputs(pdiags.str().c_str(), stderr);
  if (!result.ok) return 1;
  if (verify) {
    ptxopt::DiagEngine vdiags;
    if (!ptxopt::verifyModule(*module, vdiags, "after the pipeline")) {
      std::fputs(vdiags.str().c_str(), stderr);
      return 1;
    }
  }

  if (!flags.remarks.empty()) {
    std::string lines;
    for (const ptxopt::Remark& r : result.remarks) lines += ptxopt::tools::remarkJson(r) + "\n";
    if (!ptxopt::writeFile(flags.remarks, lines, error)) {
      std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
      return 1;
    }
  }
  if (stats) {
    std::string out = ptxopt::formatStats(statsBefore, displayName);
    if (!pm.passes().empty()) {
      out += ptxopt::formatStats(ptxopt::computeStats(*module), "the output");
      out += "pass counters:\n";
      if (result.counts.empty()) out += "  (none)\n";
      for (const auto& [name, n] : result.counts) out += fmt::format("  {:<40}{:>10}\n", name, n);
    }
    std::fputs(out.c_str(), stderr);
  }
  if (timePasses) {
    std::string out = "pass timing (seconds, summed over functions):\n";
    double total = 0;
    for (const PassInfo* p : pm.passes()) {
      double s = result.seconds[std::string(p->name)];
      total += s;
      out += fmt::format("  {:<20}{:>12.6f}\n", p->name, s);
    }
    out += fmt::format("  {:<20}{:>12.6f}\n", "total", total);
    out += "analyses computed for the passes (seconds, included in the passes' times; runs):\n";
    for (const auto& [name, s] : result.analysisSeconds)
      out += fmt::format("  {:<20}{:>12.6f}{:>8}\n", name, s, result.analysisRuns[name]);
    std::fputs(out.c_str(), stderr);
  }

  // CFG pictures of the final IR and printed analyses, from one analysis manager per function.
  std::vector<std::pair<std::string, std::string>> dots = std::move(result.dots);
  std::string analysisText;
  if (!dotDir.empty() || !analyses.empty())
    for (auto& f : module->functions()) {
      if (!f->hasBody) continue;
      ptxopt::FunctionAnalysisManager am(*f);
      if (!dotDir.empty()) dots.emplace_back(ptxopt::dotFileStem(*f), ptxopt::cfgToDot(*f, am));
      for (const std::string& a : analyses) ptxopt::printAnalysis(a, *f, am, analysisText);
    }
  if (!dotDir.empty()) {
    if (!ptxopt::makeDirectory(dotDir, error)) {
      std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
      return 1;
    }
    bool render = dotFormat != "dot";
    if (render && ptxopt::findProgram("dot").empty()) {
      std::fprintf(stderr, "ptxopt: warning: Graphviz 'dot' is not installed; wrote .dot files only, no %s\n",
                   dotFormat.c_str());
      render = false;
    }
    for (const auto& [stem, body] : dots) {
      std::string path = dotDir + "/" + stem + ".dot";
      if (!ptxopt::writeFile(path, body, error)) {
        std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
        return 1;
      }
      if (render && !ptxopt::renderDot(path, dotFormat, dotDir + "/" + stem + "." + dotFormat, error)) {
        std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
        return 1;
      }
    }
  }

  if (!analyses.empty()) {
    if (!ptxopt::writeFile("-", analysisText, error)) {
      std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
      return 1;
    }
    if (!outputGiven) return 0;
  }

  ptxopt::PrintOptions printOptions;
  if (locSelf) printOptions.locSelf = output == "-" ? "stdout" : output.substr(output.find_last_of('/') + 1);
  std::string out = ptxopt::printModule(*module, printOptions);
  if (!ptxopt::writeFile(output, out, error)) {
    std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
    return 1;
  }
  // The process ends here and its memory with it: freeing the module piece by piece would
  // take 3% of a -O0 run on a large file. The static keeps it reachable for LeakSanitizer.
  [[maybe_unused]] static ptxopt::Module* volatile finished = nullptr;
  finished = module.release();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxopt: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "ptxopt: internal error\n");
  }
  return 2;
}
