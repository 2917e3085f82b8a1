// ptxopt-bench: what the pipelines do to the code ptxas makes, kernel by kernel. For every
// NAME.ptx with a launch spec NAME.json (or several: NAME.VARIANT.json, each measured as the
// kernel NAME.VARIANT), and every pipeline asked for, it measures the emulator
// figures, the SASS census on two targets and the estimated dynamic SASS instructions, and
// writes OUTDIR/quality.json, OUTDIR/summary.md and OUTDIR/index.html (docs/QUALITY.md).
// With --program, the same report for a whole CUDA program run under ptxrun exec (Program.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include "Program.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/quality/Measure.h"
#include "ptxopt/quality/Report.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Process.h"

#ifndef PTXOPT_VENV_BIN
#define PTXOPT_VENV_BIN ""
#endif

namespace {

using namespace ptxopt;

struct Kernel {
  std::string ptxPath, specPath;
  std::string label;  // the .ptx path, with ".VARIANT" before ".ptx" for a variant spec
};

// The launches of `ptx`: NAME.json beside it or in a spec directory (the first found), else
// every NAME.VARIANT.json there (VARIANT without dots), as (spec, label).
std::vector<std::pair<std::string, std::string>> specsFor(const std::string& ptx, const std::vector<std::string>& specDirs) {
  std::string stem = ptx.substr(0, ptx.size() - 4);
  size_t slash = stem.find_last_of('/');
  std::string name = stem.substr(slash + 1), here = slash == std::string::npos ? "." : stem.substr(0, slash);
  std::vector<std::string> dirs{here};
  dirs.insert(dirs.end(), specDirs.begin(), specDirs.end());
  for (const std::string& d : dirs)
    if (isRegularFile(d + "/" + name + ".json")) return {{d + "/" + name + ".json", ptx}};
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& d : dirs) {
    if (!isDirectory(d)) continue;
    for (const std::string& j : filesWithSuffix(d, ".json", false)) {
      std::string base = j.substr(j.find_last_of('/') + 1);
      if (base.size() <= name.size() + 6 || base.compare(0, name.size() + 1, name + ".") != 0) continue;
      std::string variant = base.substr(name.size() + 1, base.size() - name.size() - 6);
      if (variant.find('.') != std::string::npos) continue;
      if (std::none_of(out.begin(), out.end(), [&](auto& o) { return o.second == stem + "." + variant + ".ptx"; }))
        out.emplace_back(j, stem + "." + variant + ".ptx");
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.second < b.second; });
  return out;
}

int run(int argc, char** argv) {
  CLI::App app{"ptxopt-bench: measures what ptxopt's pipelines do to the SASS ptxas makes and to the emulated run"};
  std::vector<std::string> inputs, specDirs;
  std::string outDir, pipelinesText = "-O0,-O1,-O2", ptxas, nvdisasm, arch = "sm_90", secondArch = "sm_80";
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency()), cfgPictures = 3, timeout = 600;
  bool quiet = false, program = false;
  // --program: what follows the first "--" is the program and its arguments, not ours to parse.
  std::vector<std::string> command;
  int ours = argc;
  for (int k = 1; k < argc; ++k)
    if (std::string(argv[k]) == "--") {
      for (int j = 1; j < k; ++j) program |= std::string(argv[j]) == "--program";
      if (program) {
        command.assign(argv + k + 1, argv + argc);
        ours = k;
      }
      break;
    }
  app.add_option("inputs", inputs, "directories with NAME.ptx and NAME.json, or single .ptx files");
  app.add_option("-o,--output", outDir,
                 "where quality.json, summary.md, index.html and the measured files go (with --program, default "
                 "ptxopt-bench-PROGRAM)");
  app.add_flag(
      "--program", program,
      "the report of a whole CUDA program (built with nvcc -cudart shared), given after --: each pipeline's run "
      "under ptxrun exec, per kernel and in total, its stdout and files compared between pipelines");
  app.add_option(
      "--pipelines", pipelinesText,
      "comma list: -O0..-O3, a pass, passes joined with '+', each optionally with @PASS.KNOB=VALUE "
      "and @profile (the passes see the branch profile of the same launch on the input, as with "
      "ptxrun --profile-out and ptxopt --profile-use) (default -O0,-O1,-O2, with --program -O0,-O3,-O3@profile; the "
      "first is the baseline)");
  app.add_option("--specs", specDirs, "also look for NAME.json here (repeatable)")->allow_extra_args(false);
  app.add_option("-j", jobs, "cells measured at once (default: all cores)")->check(CLI::Range(1u, 256u));
  app.add_option("--ptxas", ptxas, "ptxas (default: /usr/local/cuda/bin, then the PATH)");
  app.add_option("--nvdisasm", nvdisasm, "nvdisasm (default: the PATH, then the project's .venv)");
  app.add_option("--arch", arch, "main target (default sm_90)");
  app.add_option("--second-arch", secondArch, "second target for the census, or 'none' (default sm_80)");
  app.add_option("--cfg-pictures", cfgPictures, "kernels with before/after CFG pictures in index.html (default 3)");
  app.add_option("--timeout", timeout,
                 "seconds one cell may take (with --program: one pipeline's run and measurement) (default 600)");
  app.add_flag("-q,--quiet", quiet, "no progress bar");
  CLI11_PARSE(app, ours, argv);
  if (program && !inputs.empty()) {
    std::fprintf(stderr,
                 "ptxopt-bench: error: with --program, the program and its arguments come after --: "
                 "ptxopt-bench --program [options] -- ./app args...\n");
    return 1;
  }
  if (!program && (inputs.empty() || outDir.empty())) {
    std::fprintf(stderr,
                 "ptxopt-bench: error: %s is required (ptxopt-bench [options] -o OUTDIR DIR|FILE.ptx ..., or "
                 "ptxopt-bench --program [options] -- ./app args...)\n",
                 inputs.empty() ? "an input" : "-o OUTDIR");
    return 1;
  }

  if (program && !app.count("--pipelines")) pipelinesText = "-O0,-O3,-O3@profile";  // with and without its profile
  std::vector<fuzz::Pipeline> pipelines;
  for (const std::string& p : splitList(pipelinesText)) {
    fuzz::Pipeline pipeline;
    std::string error;
    if (!quality::parsePipeline(p, pipeline, error)) {
      std::fprintf(stderr, "ptxopt-bench: error: %s\n", error.c_str());
      return 1;
    }
    pipelines.push_back(pipeline);
  }
  if (pipelines.empty()) {
    std::fprintf(stderr, "ptxopt-bench: error: --pipelines names no pipeline\n");
    return 1;
  }

  std::string commandLine = "ptxopt-bench";
  for (int k = 1; k < argc; ++k) commandLine += std::string(" ") + argv[k];
  auto makeTools = [&] {
    quality::Tools t;
    t.ptxas = !ptxas.empty() ? ptxas : findProgram("ptxas", {"/usr/local/cuda/bin"});
    t.nvdisasm = !nvdisasm.empty() ? nvdisasm : findProgram("nvdisasm", {}, {PTXOPT_VENV_BIN, "/usr/local/cuda/bin"});
    t.arch = arch;
    t.secondArch = secondArch == "none" ? "" : secondArch;
    if (t.ptxas.empty() || t.nvdisasm.empty())
      std::fprintf(
          stderr,
          "ptxopt-bench: SKIPPED: the SASS figures (%s not found; scripts/setup.sh installs nvdisasm into .venv)\n",
          t.ptxas.empty() ? "ptxas" : "nvdisasm");
    return t;
  };
  if (program) {
    bench::ProgramOptions po;
    po.command = command;
    po.pipelines = pipelines;
    po.outDir = outDir;
    po.jobs = jobs;
    po.timeout = timeout;
    po.cfgPictures = cfgPictures;
    po.quiet = quiet;
    po.tools = makeTools();
    po.commandLine = commandLine;
    return bench::runProgram(po);
  }

  std::vector<Kernel> kernels;
  size_t withoutSpec = 0;
  for (const std::string& in : inputs) {
    std::vector<std::string> files;
    if (isDirectory(in)) {
      files = filesWithSuffix(in, ".ptx", false);
    } else if (isRegularFile(in)) {
      files.push_back(in);
    } else {
      std::fprintf(stderr, "ptxopt-bench: error: '%s' is neither a directory nor a file\n", in.c_str());
      return 1;
    }
    for (const std::string& f : files) {
      auto specs = specsFor(f, specDirs);
      if (specs.empty()) {
        ++withoutSpec;
        if (!isDirectory(in)) {
          std::fprintf(stderr, "ptxopt-bench: error: %s has no launch spec (%s.json or %s.VARIANT.json)\n", f.c_str(),
                       f.substr(0, f.size() - 4).c_str(), f.substr(0, f.size() - 4).c_str());
          return 1;
        }
        continue;
      }
      for (auto& [spec, label] : specs) kernels.push_back({f, spec, label});
    }
  }
  if (kernels.empty()) {
    std::fprintf(stderr, "ptxopt-bench: error: no NAME.ptx with a launch spec NAME.json or NAME.VARIANT.json in the inputs\n");
    return 1;
  }

  quality::Tools tools = makeTools();

  std::string error;
  if (!makeDirectory(outDir, error)) {
    std::fprintf(stderr, "ptxopt-bench: error: %s\n", error.c_str());
    return 1;
  }

  // The matrix: kernel-major, so that a kernel's baseline comes first.
  struct Cell {
    size_t kernel, pipeline;
  };
  std::vector<Cell> cells;
  for (size_t k = 0; k < kernels.size(); ++k)
    for (size_t p = 0; p < pipelines.size(); ++p) cells.push_back({k, p});
  std::vector<quality::Measurement> results(cells.size());
  // Measured pipeline by pipeline, so that a kernel a pipeline leaves as an earlier one left it
  // finds that module's SASS in the cache (about half the cells of the corpus at -O0,-O2,-O2@profile).
  std::vector<size_t> order(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cells[a].pipeline < cells[b].pipeline; });
  tools.sassCache = outDir + "/work/sass-cache";
  std::error_code ec;
  std::filesystem::remove_all(tools.sassCache, ec);
  if (!makeDirectory(tools.sassCache, error)) {
    std::fprintf(stderr, "ptxopt-bench: error: %s\n", error.c_str());
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  size_t done = 0;
  bool tty = isatty(2) && !quiet;
  auto lastLine = start;
  runInChildren(
      cells.size(), jobs, timeout,
      [&](size_t j) -> std::string {
        const size_t i = order[j];
        const Kernel& k = kernels[cells[i].kernel];
        std::string ptx, specText, err;
        emu::LaunchSpec spec;
        quality::Measurement m;
        m.file = k.label;
        m.pipeline = pipelines[cells[i].pipeline].label;
        if (!readFile(k.ptxPath, ptx, err) || !readFile(k.specPath, specText, err) ||
            !emu::parseLaunchSpec(specText, k.specPath, spec, err)) {
          m.error = err;
          return quality::measurementToLine(m);
        }
        std::string stem = k.label.substr(k.label.find_last_of('/') + 1);
        std::string dir = k.label.substr(0, k.label.find_last_of('/') + 1);
        dir = dir.empty() ? "." : dir.substr(0, dir.size() - 1);
        std::string work = outDir + "/work/" + dir.substr(dir.find_last_of('/') + 1) + "-" + stem.substr(0, stem.size() - 4);
        return quality::measurementToLine(quality::measure(k.label, ptx, spec, pipelines[cells[i].pipeline], tools, work));
      },
      [&](size_t j, ProcessResult&& r) {
        const size_t i = order[j];
        quality::Measurement& m = results[i];
        std::string err;
        if (!r.ok() || !quality::measurementFromLine(r.out, m, err)) {
          m = quality::Measurement{};
          m.file = kernels[cells[i].kernel].label;
          m.pipeline = pipelines[cells[i].pipeline].label;
          m.error = r.ok() ? err : "the measurement ended by " + r.describe();
        }
        ++done;
        if (quiet) return;
        auto now = std::chrono::steady_clock::now();
        double secs = std::chrono::duration<double>(now - start).count();
        if (tty) {
          int width = 40, filled = static_cast<int>(width * done / cells.size());
          std::fprintf(stderr, "\r[%s%s] %zu/%zu cells, %.0f s", std::string(static_cast<size_t>(filled), '#').c_str(),
                       std::string(static_cast<size_t>(width - filled), '.').c_str(), done, cells.size(), secs);
          if (done == cells.size()) std::fprintf(stderr, "\n");
        } else if (done == cells.size() || now - lastLine > std::chrono::seconds(10)) {
          lastLine = now;
          std::fprintf(stderr, "ptxopt-bench: %zu/%zu cells, %.0f s\n", done, cells.size(), secs);
        }
      });

  // Results equal to the baseline's (the first pipeline of the same kernel).
  std::vector<quality::Row> rows(cells.size());
  size_t differ = 0, failed = 0;
  for (size_t i = 0; i < cells.size(); ++i) rows[i].m = std::move(results[i]);
  for (size_t i = 0; i < cells.size(); ++i) {
    const quality::Measurement& base = rows[i - cells[i].pipeline].m;
    rows[i].identical = rows[i].m.error.empty() && base.error.empty() && rows[i].m.resultDigest == base.resultDigest;
    failed += !rows[i].m.error.empty();
    differ += rows[i].m.error.empty() && !rows[i].identical;
  }

  quality::ReportOptions ro;
  for (const fuzz::Pipeline& p : pipelines) ro.pipelines.push_back(p.label);
  ro.cfgPictures = cfgPictures;
  ro.command = commandLine;
  if (!writeFile(outDir + "/quality.json", quality::qualityJson(rows), error) ||
      !writeFile(outDir + "/summary.md", quality::summaryMarkdown(rows, ro), error) ||
      !writeFile(outDir + "/index.html", quality::reportHtml(rows, ro), error)) {
    std::fprintf(stderr, "ptxopt-bench: error: %s\n", error.c_str());
    return 1;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu kernels x %zu pipelines in %.1f s%s\n", kernels.size(), pipelines.size(), secs,
              withoutSpec ? (" (" + std::to_string(withoutSpec) + " .ptx files without a launch spec left out)").c_str() : "");
  for (const std::string& p : ro.pipelines) {
    std::printf("  %-24s", p.c_str());
    for (const char* key : {"dyn_sass_estimate", "sass_instructions", "sass_branches", "warp_instructions"}) {
      size_t n = 0;
      double g = quality::geometricMeanRatio(rows, ro.pipelines[0], p, key, &n);
      std::printf("  %s %s", key, n ? std::to_string(g).substr(0, 6).c_str() : "-");
    }
    std::printf("\n");
  }
  for (const quality::Row& r : rows)
    if (!r.m.error.empty())
      std::fprintf(stderr, "ptxopt-bench: %s %s: %s\n", r.m.file.c_str(), r.m.pipeline.c_str(), r.m.error.c_str());
    else if (!r.identical)
      std::fprintf(stderr, "ptxopt-bench: %s %s: RESULTS DIFFER from %s\n", r.m.file.c_str(), r.m.pipeline.c_str(),
                   ro.pipelines[0].c_str());
  std::printf("report: %s/index.html (summary.md, quality.json beside it)\n", outDir.c_str());
  return differ || failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxopt-bench: error: %s\n", e.what());
    return 1;
  }
}
