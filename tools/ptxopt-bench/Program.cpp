#include "Program.h"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "ptxopt/passes/PassManager.h"
#include "ptxopt/quality/Program.h"
#include "ptxopt/quality/Report.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Process.h"

namespace ptxopt::bench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// The last `n` lines of a text, each indented, for an error message.
std::string lastLines(const std::string& text, size_t n) {
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') --end;
  size_t at = end;
  for (size_t k = 0; k < n && at > 0; ++k) {
    size_t nl = text.rfind('\n', at - 1);
    at = nl == std::string::npos ? 0 : nl;
    if (nl == std::string::npos) break;
  }
  std::string tail = text.substr(at, end - at), out;
  if (!tail.empty() && tail[0] == '\n') tail.erase(0, 1);
  if (tail.empty()) return "";
  out = "\n    ";
  for (char c : tail) out += c == '\n' ? std::string("\n    ") : std::string(1, c);
  return out;
}

// ptxrun beside this executable (both are in build/, or both in an installed bin/).
std::string findPtxrun() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  std::string dir(self, static_cast<size_t>(n));
  return dir.substr(0, dir.find_last_of('/')) + "/ptxrun";
}

// The ptxrun exec options that run `p`: --passes (an -O level as such, so that -O0 prints the
// module too), --knob per setting, --profile-use with the program's own profile.
std::vector<std::string> execArguments(const fuzz::Pipeline& p, const std::string& profile) {
  std::string level = p.label.substr(0, p.label.find('@')), passes;
  if (level.size() == 3 && level[0] == '-' && level[1] == 'O' && level[2] >= '0' && level[2] <= '3') {
    passes = level;
  } else {
    for (const std::string& pass : p.passes) passes += (passes.empty() ? "" : ",") + pass;
  }
  std::vector<std::string> out{"--passes=" + passes, "--loc-self"};
  for (const auto& [knob, value] : p.knobs) out.push_back("--knob=" + knob + "=" + value);
  if (p.profileUse) out.push_back("--profile-use=" + profile);
  return out;
}

struct Run {
  std::string dir;  // OUT/runs/LABEL: stdout, stderr, metrics.json; cwd/ is the program's
  ProcessResult result;
  double seconds = 0;
  std::string error;  // the run failed: why, with the end of its stderr
};

// Runs the program under ptxrun exec with `options` in a fresh, empty working directory.
Run runOnce(const std::string& ptxrun, const std::string& dir, const std::vector<std::string>& options,
            const std::vector<std::string>& command, unsigned threads, unsigned timeout) {
  Run r;
  r.dir = dir;
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!makeDirectory(dir + "/cwd", r.error)) return r;
  std::vector<std::string> argv{ptxrun, "exec", "--threads=" + std::to_string(threads)};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  auto start = Clock::now();
  r.result = runProcess(argv, timeout, dir + "/cwd");
  r.seconds = secondsSince(start);
  std::string error;
  if (!writeFile(dir + "/stdout", r.result.out, error) || !writeFile(dir + "/stderr", r.result.err, error))
    r.error = error;
  else if (!r.result.ok())
    r.error = "the program failed under ptxrun exec (" + r.result.describe() + ")" +
              (r.result.err.empty() ? "" : ":" + lastLines(r.result.err, 6));
  return r;
}

}  // namespace

int runProgram(const ProgramOptions& o) {
  if (o.command.empty() || o.command[0].empty()) {
    std::fprintf(stderr,
                 "ptxopt-bench: error: --program needs the program to run: ptxopt-bench --program [options] -- "
                 "./app args...\n");
    return 1;
  }
  std::string ptxrun = findPtxrun();
  if (ptxrun.empty() || access(ptxrun.c_str(), X_OK) != 0) {
    std::fprintf(stderr,
                 "ptxopt-bench: error: --program runs the program with ptxrun, which is not beside ptxopt-bench (%s)\n",
                 ptxrun.c_str());
    return 1;
  }
  for (const fuzz::Pipeline& p : o.pipelines) {
    PassManager pm;
    std::string error;
    if (!pm.configure(p.managerOptions(), error)) {
      std::fprintf(stderr, "ptxopt-bench: error: the pipeline %s does not configure: %s\n", p.label.c_str(),
                   error.c_str());
      return 1;
    }
  }
  // The program by an absolute path: each run starts in a directory of its own.
  std::vector<std::string> command = o.command;
  std::string& program = command[0];
  if (program.find('/') == std::string::npos) {
    std::string found = findProgram(program);
    if (found.empty()) {
      std::fprintf(stderr, "ptxopt-bench: error: no program '%s' in the PATH\n", program.c_str());
      return 1;
    }
    program = found;
  }
  std::error_code ec;
  program = fs::absolute(program, ec).lexically_normal().string();
  if (!isRegularFile(program)) {
    std::fprintf(stderr, "ptxopt-bench: error: no program %s\n", program.c_str());
    return 1;
  }
  std::string name = program.substr(program.find_last_of('/') + 1);
  std::string outDir = o.outDir.empty() ? "ptxopt-bench-" + name : o.outDir, error;
  if (!makeDirectory(outDir, error)) {
    std::fprintf(stderr, "ptxopt-bench: error: %s\n", error.c_str());
    return 1;
  }
  const std::string out = fs::absolute(outDir, ec).lexically_normal().string();
  const std::string profile = out + "/profile.json";
  const size_t P = o.pipelines.size();
  unsigned atOnce = std::max(1u, std::min<unsigned>(o.jobs, static_cast<unsigned>(P)));
  unsigned threads = std::max(1u, std::thread::hardware_concurrency() / atOnce);
  auto progress = [&](const std::string& line) {
    if (!o.quiet) std::fprintf(stderr, "ptxopt-bench: %s\n", line.c_str());
  };
  auto start = Clock::now();

  // The program's own profile: one run as built, for the @profile pipelines.
  bool anyProfile = false;
  for (const fuzz::Pipeline& p : o.pipelines) anyProfile |= p.profileUse;
  if (anyProfile) {
    progress("running " + name + " as built for its branch profile (ptxrun exec --profile-out)");
    Run r = runOnce(ptxrun, out + "/runs/profile-as-built", {"--profile-out=" + profile}, command, threads, o.timeout);
    if (!r.error.empty()) {
      std::fprintf(stderr, "ptxopt-bench: error: the profiling run of %s as built: %s\n", name.c_str(),
                   r.error.c_str());
      return 1;
    }
    progress("profiled in " + seconds(r.seconds) + ": " + profile);
  }

  // Each pipeline in a child: run, then measure every kernel from the metrics. The child hands
  // back a header line ({"error"} or {"seconds"}) and one measurement line per kernel. The
  // baseline runs alone first: when it fails (a program built with the static runtime, ...), so
  // would the others.
  struct Result {
    std::string error;
    double seconds = 0;
    std::vector<quality::Measurement> kernels;
  };
  std::vector<Result> results(P);
  auto work = [&](size_t i) -> std::string {
    const fuzz::Pipeline& p = o.pipelines[i];
    std::string dir = out + "/runs/" + quality::fileLabel(p.label);
    std::vector<std::string> options = execArguments(p, profile);
    options.push_back("--metrics=" + dir + "/metrics.json");
    std::string shown;
    for (size_t k = 0; k + 1 < options.size(); ++k) shown += " " + options[k];  // all but --metrics
    progress(p.label + ": running " + name + " (ptxrun exec" + shown + ")");
    Run r = runOnce(ptxrun, dir, options, command, threads, o.timeout);
    if (!r.error.empty()) return Json{{"error", r.error}}.dump() + "\n";
    std::string text, err;
    quality::ProgramRun run;
    if (!readFile(dir + "/metrics.json", text, err) || !quality::readProgramRun(text, run, err))
      return Json{{"error", "the run's metrics: " + err}}.dump() + "\n";
    for (const quality::ProgramRun::Module& m : run.modules)
      if (!m.optimized)
        return Json{{"error",
                     "module " + m.name + " ran as built: " + p.label + " failed on it:" + lastLines(r.result.err, 6)}}
                   .dump() +
               "\n";
    progress(p.label + ": ran in " + seconds(r.seconds) + "; assembling " + std::to_string(run.modules.size()) +
             " module(s) for " + std::to_string(run.kernels.size()) + " kernel(s)");
    std::string lines = Json{{"seconds", r.seconds}}.dump() + "\n";
    for (const quality::Measurement& m :
         quality::measureProgramRun(run, name, p.label, o.tools, out + "/work/" + quality::fileLabel(p.label)))
      lines += quality::measurementToLine(m) + "\n";
    return lines;
  };
  size_t done = 0;
  auto finished = [&](size_t i, ProcessResult&& r) {
    Result& res = results[i];
    if (!r.ok()) {
      res.error = "the measurement ended by " + r.describe();
    } else {
      size_t at = 0;
      for (size_t line = 0; at < r.out.size(); ++line) {
        size_t nl = r.out.find('\n', at);
        std::string text = r.out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        at = nl == std::string::npos ? r.out.size() : nl + 1;
        std::string err;
        if (line == 0) {
          Json h = Json::parse(text, nullptr, false);
          res.error = h.is_object() ? h.value("error", "") : "not a result: " + text.substr(0, 200);
          res.seconds = h.is_object() ? h.value("seconds", 0.0) : 0;
        } else if (quality::Measurement m; quality::measurementFromLine(text, m, err)) {
          res.kernels.push_back(std::move(m));
        } else {
          res.error = err;
        }
      }
    }
    ++done;
    progress(o.pipelines[i].label + ": " + (res.error.empty() ? "measured" : "failed") + " (" + std::to_string(done) +
             "/" + std::to_string(P) + " pipelines, " + seconds(secondsSince(start)) + ")");
  };
  runInChildren(1, 1, o.timeout, work, finished);
  if (!results[0].error.empty()) {
    std::fprintf(stderr, "ptxopt-bench: error: %s under %s: %s\n", name.c_str(), o.pipelines[0].label.c_str(),
                 results[0].error.c_str());
    return 1;
  }
  if (P > 1)
    runInChildren(
        P - 1, atOnce, o.timeout, [&](size_t i) { return work(i + 1); },
        [&](size_t i, ProcessResult&& r) { finished(i + 1, std::move(r)); });

  // Outputs: stdout and the files of each run's working directory against the baseline's.
  std::vector<quality::ProgramOutputs> outputs(P);
  std::vector<std::string> differences;
  std::vector<bool> same(P, false);
  for (size_t i = 0; i < P; ++i) {
    if (!results[i].error.empty()) continue;
    std::string dir = out + "/runs/" + quality::fileLabel(o.pipelines[i].label), text, err;
    if (!readFile(dir + "/stdout", text, err) || !quality::collectOutputs(dir + "/cwd", text, outputs[i], err)) {
      results[i].error = "its outputs: " + err;
      continue;
    }
    std::string digest = quality::outputsDigest(outputs[i]);
    for (quality::Measurement& m : results[i].kernels) m.resultDigest = digest;
    if (i == 0) {
      same[0] = true;
      continue;
    }
    std::vector<std::string> d = quality::compareOutputs(outputs[0], outputs[i]);
    same[i] = d.empty();
    for (const std::string& line : d) differences.push_back(o.pipelines[i].label + ": " + line);
  }

  // The rows: every kernel under every pipeline, then the totals.
  std::vector<quality::Row> rows, totals;
  for (size_t i = 0; i < P; ++i) {
    for (quality::Measurement& m : results[i].kernels) {
      quality::Row r;
      r.m = m;
      r.identical = same[i] && m.error.empty();
      rows.push_back(std::move(r));
    }
    quality::Row t;
    t.m = quality::programTotal(results[i].kernels, name, o.pipelines[i].label);
    if (!results[i].error.empty()) t.m.error = results[i].error;
    t.m.resultDigest = results[i].error.empty() ? quality::outputsDigest(outputs[i]) : "";
    t.identical = same[i] && t.m.error.empty();
    t.total = true;
    totals.push_back(std::move(t));
  }
  rows.insert(rows.end(), totals.begin(), totals.end());

  quality::ReportOptions ro;
  for (const fuzz::Pipeline& p : o.pipelines) ro.pipelines.push_back(p.label);
  ro.cfgPictures = o.cfgPictures;
  ro.command = o.commandLine;
  for (const std::string& a : command) ro.program += (ro.program.empty() ? "" : " ") + a;
  ro.outputDifferences = differences;
  if (!writeFile(out + "/quality.json", quality::qualityJson(rows), error) ||
      !writeFile(out + "/summary.md", quality::summaryMarkdown(rows, ro), error) ||
      !writeFile(out + "/index.html", quality::reportHtml(rows, ro), error)) {
    std::fprintf(stderr, "ptxopt-bench: error: %s\n", error.c_str());
    return 1;
  }

  // The totals on stdout; failures and differences on stderr.
  size_t kernels = 0;
  for (const Result& r : results) kernels = std::max(kernels, r.kernels.size());
  std::printf("%s: %zu kernels x %zu pipelines in %.1f s (figures: the sum over the kernels; relative to %s)\n",
              name.c_str(), kernels, P, secondsSince(start), o.pipelines[0].label.c_str());
  for (const quality::Row& t : totals) {
    std::printf("  %-24s", t.m.pipeline.c_str());
    if (!t.m.error.empty()) {
      std::printf("  FAILED\n");
      continue;
    }
    for (const char* key : {"dyn_sass_estimate", "sass_instructions", "sass_bra", "sass_bssy", "sass_bsync", "sass_bar",
                            "warp_instructions"}) {
      double v, b;
      if (!quality::figure(t, key, v)) {
        std::printf("  %s -", key);
        continue;
      }
      std::printf("  %s %.0f", key, v);
      if (quality::figure(totals[0], key, b) && b > 0) std::printf(" (%.4f)", v / b);
    }
    std::printf("  outputs %s\n", t.identical ? "same" : "DIFFER");
  }
  bool failed = false;
  for (size_t i = 0; i < P; ++i)
    if (!results[i].error.empty()) {
      failed = true;
      std::fprintf(stderr, "ptxopt-bench: error: %s under %s: %s\n", name.c_str(), o.pipelines[i].label.c_str(),
                   results[i].error.c_str());
    } else {
      for (const quality::Measurement& m : results[i].kernels)
        if (!m.error.empty()) {
          failed = true;
          std::fprintf(stderr, "ptxopt-bench: error: %s under %s: kernel %s: %s\n", name.c_str(),
                       o.pipelines[i].label.c_str(), m.kernel.c_str(), m.error.c_str());
        }
    }
  for (const std::string& d : differences)
    std::fprintf(stderr, "ptxopt-bench: error: outputs differ from %s's under %s\n", o.pipelines[0].label.c_str(),
                 d.c_str());
  std::printf("report: %s/index.html (summary.md, quality.json beside it; each run in %s/runs/)\n", outDir.c_str(),
              outDir.c_str());
  return failed || !differences.empty() ? 1 : 0;
}

}  // namespace ptxopt::bench
