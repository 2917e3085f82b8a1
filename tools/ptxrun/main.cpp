// ptxrun: runs PTX kernels on the CPU with 32-lane warps.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ptxopt/cudart/Fatbin.h"
#include "ptxopt/emu/Emulator.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Version.h"

#include "../common/MetricsJson.h"
#include "Exec.h"

namespace {

using namespace ptxopt;
using namespace ptxopt::emu;

// Exit codes.
constexpr int kOk = 0, kError = 1, kInternal = 2, kFault = 3, kRaces = 4;

// A warning for each `bra.uni` whose lanes went different ways in the run of `file`.
void warnUniSplits(const std::string& file, const Metrics& m) {
  for (const auto& [line, n] : m.uniSplits)
    std::fprintf(stderr,
                 "%s:%u: warning: bra.uni split a warp %llu time(s): its lanes disagreed on a branch the PTX "
                 "declares uniform (undefined on the GPU, where ptxas gives it no reconvergence)\n",
                 file.c_str(), line, static_cast<unsigned long long>(n));
}

struct Loaded {
  std::string text;
  std::unique_ptr<Module> module;
  std::unique_ptr<Emulator> emulator;
};

bool load(const std::string& path, Loaded& out) {
  std::string error;
  if (!readFile(path, out.text, error)) {
    std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
    return false;
  }
  DiagEngine diags;
  out.module = loadModule(out.text, path, diags);
  std::fputs(diags.str().c_str(), stderr);
  if (!out.module) return false;
  out.emulator = Emulator::create(*out.module, error);
  if (!out.emulator) {
    std::fprintf(stderr, "ptxrun: error: %s: %s\n", path.c_str(), error.c_str());
    return false;
  }
  return true;
}

// Writes DIR/<name>.bin for each (name, bytes), creating DIR.
bool dumpBuffers(const std::string& dir, const std::vector<std::pair<std::string, const std::vector<uint8_t>*>>& files) {
  std::string error;
  if (!makeDirectory(dir, error)) {
    std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
    return false;
  }
  for (const auto& [name, bytes] : files) {
    if (!writeFile(dir + "/" + name + ".bin", std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), error)) {
      std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
      return false;
    }
  }
  return true;
}

struct ExtractOptions {
  std::string file, dir = ".";
  bool list = false;
};

// ptxrun extract-ptx: the PTX entries of the fat binaries in an nvcc-built executable or object
// (docs/CUDART.md). Entries are numbered in file order across all images.
int runExtractPtx(const ExtractOptions& o) {
  std::string bytes, error;
  if (!readFile(o.file, bytes, error)) {
    std::fprintf(stderr, "%s: error: %s\n", o.file.c_str(), error.c_str());
    return kError;
  }
  std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::vector<cudart::FatbinImage> images;
  if (!cudart::findFatbinImages(span, images, error)) {
    std::fprintf(stderr, "%s: error: %s\n", o.file.c_str(), error.c_str());
    return kError;
  }
  if (o.list) {
    unsigned index = 0;
    for (size_t i = 0; i < images.size(); ++i)
      for (const cudart::FatbinEntry& e : images[i].entries) {
        std::printf("%u: image %zu at 0x%llx: %s sm_%u, version %u.%u, %s, %llu byte(s) stored, %llu uncompressed\n",
                    index++, i, static_cast<unsigned long long>(images[i].offset), cudart::entryKindName(e.kind),
                    e.arch, e.versionMajor, e.versionMinor,
                    e.compression == cudart::Compression::None ? "not compressed" : cudart::compressionName(e.compression),
                    static_cast<unsigned long long>(e.storedSize), static_cast<unsigned long long>(e.uncompressedSize));
      }
    return kOk;
  }
  if (!makeDirectory(o.dir, error)) {
    std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
    return kError;
  }
  std::string base = o.file.substr(o.file.find_last_of('/') + 1);
  unsigned index = 0, written = 0;
  for (const cudart::FatbinImage& image : images)
    for (const cudart::FatbinEntry& e : image.entries) {
      unsigned i = index++;
      if (!e.isPtx()) continue;
      std::string text;
      if (!cudart::entryPtx(e, text, error)) {
        std::fprintf(stderr, "%s: error: entry %u: %s\n", o.file.c_str(), i, error.c_str());
        return kError;
      }
      std::string out = o.dir + "/" + base + "." + std::to_string(i) + ".sm_" + std::to_string(e.arch) + ".ptx";
      if (!writeFile(out, text, error)) {
        std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
        return kError;
      }
      std::printf("%s\n", out.c_str());
      ++written;
    }
  if (written == 0) {
    std::fprintf(stderr, "%s: error: no PTX entry in %u fatbin entr%s\n", o.file.c_str(), index, index == 1 ? "y" : "ies");
    return kError;
  }
  return kOk;
}

int run(int argc, char** argv) {
  CLI::App app{"ptxrun: runs PTX kernels on the CPU with warp-accurate SIMT semantics"};
  std::string ptxFile, specFile, dumpDir, inputsDir, printName, compareFile, profileOut, metrics, schedule = "round-robin";
  bool json = false, listUnsupported = false, noFastPaths = false;
  std::string checkRaces;  // "", "on" or "strict"
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  uint64_t seed = 1, maxInstructions = RunOptions{}.maxInstructions;
  app.add_option("ptx", ptxFile, "the PTX module");
  ExtractOptions extract;
  CLI::App* extractCmd = app.add_subcommand(
      "extract-ptx", "write the PTX of the CUDA fat binaries in an nvcc-built executable or object as DIR/<file>.<entry>.sm_<arch>.ptx");
  extractCmd->add_option("file", extract.file, "executable, shared library, object or .fatbin file")->required();
  extractCmd->add_option("-o", extract.dir, "directory to write the PTX files to (default: the current one)");
  extractCmd->add_flag("--list", extract.list, "list every entry (PTX and cubin) instead of extracting");
  tools::ExecOptions exec;
  exec.jobs = jobs;
  CLI::App* execCmd = app.add_subcommand(
      "exec", "run a CUDA program (built with nvcc -cudart shared) with ptxrun standing in for libcudart.so.13: "
              "ptxrun exec [options] -- ./program args...");
  execCmd->add_option("command", exec.command, "the program and its arguments (after --)")->required();
  execCmd->add_option("-j,--threads", exec.jobs, "run each launch's CTAs on this many threads (default: all cores)")->check(CLI::Range(1u, 1024u));
  execCmd->add_flag("--verbose", exec.verbose, "print a line for each module loaded and each launch");
  execCmd->add_option("--passes", exec.passes, "optimize each module with this ptxopt pipeline (-O3, or pass,pass,...) when it is registered");
  execCmd->add_option("--knob", exec.knobs, "a knob setting for --passes, PASS.KNOB=VALUE (repeatable)")
      ->allow_extra_args(false);
  execCmd->add_flag("--loc-self", exec.locSelf,
                    "print each optimized module with .loc lines naming its own lines (ptxopt --loc-self): the text "
                    "--metrics writes then maps SASS to the lines it counts (ptxas -lineinfo)");
  execCmd->add_option("--profile-out", exec.profileOut,
                      "write one branch profile over every launch of the run (for ptxopt --profile-use and exec --profile-use)");
  execCmd->add_option("--profile-use", exec.profileUse, "a branch profile for the cost models of --passes");
  execCmd->add_flag("--compare", exec.compare,
                    "run every launch on the modules as built and on the optimized ones, from the same memory, and stop "
                    "at the first difference in device memory or printf output (exit status 5)");
  execCmd->add_option("--metrics", exec.metrics,
                      "write per kernel its launches and dynamic figures (in total and by PTX line), and each module's "
                      "text as it ran, to this JSON file at exit");
  execCmd->add_option("--check-races", exec.checkRaces,
                      "check every launch for accesses to the same shared or global byte by different threads between "
                      "barriers; each race is reported on stderr (=strict: same-value write races count too)")
      ->expected(0, 1)
      ->default_str("on")
      ->check(CLI::IsMember({"on", "strict"}));
  app.add_option("--launch", specFile, "launch specification (JSON)");
  app.add_flag("--list-unsupported", listUnsupported, "list the module's instructions the emulator cannot run, then stop");
  app.add_option("--dump", dumpDir, "write every buffer after the run as DIR/<name>.bin");
  app.add_option("--dump-inputs", inputsDir, "write every buffer's initial contents as DIR/<name>.bin (before the run)");
  app.add_option("--print", printName, "print one buffer, one element per line");
  app.add_flag("--json", json, "print every buffer (and the printf output) as JSON");
  app.add_option("--compare", compareFile, "run the same launch on this module too and compare every buffer bit for bit");
  app.add_option("--metrics", metrics, "print dynamic figures as JSON; --metrics=per-line adds them per PTX line")
      ->expected(0, 1)
      ->default_str("summary");
  app.add_option("-j", jobs, "run CTAs on this many threads (default: all cores)")->check(CLI::Range(1u, 1024u));
  app.add_option("--schedule", schedule, "how the warps of a CTA interleave: round-robin or random")
      ->check(CLI::IsMember({"round-robin", "random"}));
  app.add_option("--seed", seed, "seed of the random schedule");
  app.add_option("--profile-out", profileOut,
                 "write a branch profile (per conditional branch and brx.idx: warp executions all taken, none taken, "
                 "divergent) to this file, for ptxopt --profile-use");
  app.add_option("--check-races", checkRaces,
                 "report accesses to the same shared or global byte by different threads between barriers (exit 4); "
                 "write races in which every writer stores the same bytes are notes, unless =strict")
      ->expected(0, 1)
      ->default_str("on")
      ->check(CLI::IsMember({"on", "strict"}));
  app.add_option("--max-instructions", maxInstructions, "fault after this many warp instructions");
  app.add_flag("--no-fast-paths", noFastPaths, "run every instruction through the general interpreter (a debugging aid)");
  app.set_version_flag("--version", std::string("ptxrun ") + kVersion);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kError;
  }
  if (app.got_subcommand(extractCmd)) return runExtractPtx(extract);
  if (app.got_subcommand(execCmd)) {
    if (execCmd->count("--check-races") && exec.checkRaces.empty()) exec.checkRaces = "on";
    return tools::runExec(exec);
  }
  if (ptxFile.empty()) {
    std::fprintf(stderr, "ptxrun: error: a PTX module is required (or a subcommand: exec, extract-ptx)\n");
    return kError;
  }
  bool wantMetrics = app.count("--metrics") > 0;
  bool perLine = metrics == "per-line";
  if (wantMetrics && !metrics.empty() && metrics != "summary" && metrics != "per-line") {
    std::fprintf(stderr, "ptxrun: error: --metrics takes no value or 'per-line', found '%s'\n", metrics.c_str());
    return kError;
  }

  if (listUnsupported) {
    Loaded m;
    if (!load(ptxFile, m)) return kError;
    auto lines = m.emulator->unsupportedInstructions();
    for (const auto& l : lines) std::printf("%s\n", l.c_str());
    std::fprintf(stderr, "ptxrun: %zu unsupported instruction(s)\n", lines.size());
    return kOk;
  }
  if (specFile.empty()) {
    std::fprintf(stderr, "ptxrun: error: --launch SPEC.json is required\n");
    return kError;
  }
  LaunchSpec spec;
  std::string error;
  if (!loadLaunchSpec(specFile, spec, error)) {
    std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
    return kError;
  }
  Loaded main;
  if (!load(ptxFile, main)) return kError;
  if (!inputsDir.empty()) {
    std::vector<std::vector<uint8_t>> contents;
    std::vector<std::pair<std::string, const std::vector<uint8_t>*>> files;
    contents.reserve(spec.params.size());
    for (const ParamSpec& p : spec.params) {
      if (p.kind != ParamSpec::Kind::Buffer) continue;
      contents.emplace_back();
      if (!initialBufferContents(p, contents.back(), error)) {
        std::fprintf(stderr, "ptxrun: error: %s: %s\n", spec.path.c_str(), error.c_str());
        return kError;
      }
      files.emplace_back(p.name, &contents.back());
    }
    if (!dumpBuffers(inputsDir, files)) return kError;
  }
  RunOptions opts;
  opts.jobs = jobs;
  opts.schedule = schedule == "random" ? RunOptions::Schedule::Random : RunOptions::Schedule::RoundRobin;
  opts.seed = seed;
  opts.checkRaces = app.count("--check-races") > 0;
  if (opts.checkRaces && checkRaces.empty()) checkRaces = "on";
  opts.maxInstructions = maxInstructions;
  opts.perLineMetrics = perLine;
  opts.fastPaths = !noFastPaths;
  opts.branchProfile = !profileOut.empty();
  RunResult r = main.emulator->run(spec, opts);
  if (!r.error.empty()) {
    std::fprintf(stderr, "ptxrun: error: %s\n", r.error.c_str());
    return kError;
  }
  std::fputs(r.stdoutText.c_str(), stdout);
  if (!r.fault.empty()) {
    std::fprintf(stderr, "ptxrun: fault: %s\n", r.fault.c_str());
    return kFault;
  }
  warnUniSplits(ptxFile, r.metrics);
  if (!profileOut.empty()) {
    BranchProfile profile = profileFromOutcomes(*main.module, r.metrics.branchOutcomes);
    profile.ptx = ptxFile;
    profile.kernel = spec.kernel;
    profile.module = ptxTextHash(main.text);
    std::string werr;
    if (!writeFile(profileOut, branchProfileJson(profile), werr)) {
      std::fprintf(stderr, "ptxrun: error: %s\n", werr.c_str());
      return kError;
    }
  }
  int rc = kOk;
  uint64_t sameValueRaces = 0, races = 0;
  for (const RaceReport& race : r.races) {
    bool counts = !race.sameValue || checkRaces == "strict";
    std::fprintf(stderr, "ptxrun: %s%s (%llu time(s))\n", counts ? "" : "note: ", race.description.c_str(),
                 static_cast<unsigned long long>(race.occurrences));
    (race.sameValue ? sameValueRaces : races) += 1;
    if (counts) rc = kRaces;
  }
  if (opts.checkRaces && r.races.empty()) std::fprintf(stderr, "ptxrun: no races found\n");

  if (!compareFile.empty()) {
    Loaded other;
    if (!load(compareFile, other)) return kError;
    RunResult o = other.emulator->run(spec, opts);
    if (!o.error.empty()) {
      std::fprintf(stderr, "ptxrun: error: %s: %s\n", compareFile.c_str(), o.error.c_str());
      return kError;
    }
    if (!o.fault.empty()) {
      std::fprintf(stderr, "ptxrun: fault in %s: %s\n", compareFile.c_str(), o.fault.c_str());
      return kFault;
    }
    warnUniSplits(compareFile, o.metrics);
    std::string diff = firstDifference(r, o, ptxFile, compareFile);
    if (!diff.empty()) {
      std::printf("%s\n", diff.c_str());
      return kError;
    }
    std::printf("identical: %zu buffer(s) of %s and %s match bit for bit\n", r.buffers.size(), ptxFile.c_str(), compareFile.c_str());
  }

  if (!dumpDir.empty()) {
    std::vector<std::pair<std::string, const std::vector<uint8_t>*>> files;
    for (const BufferResult& b : r.buffers) files.emplace_back(b.name, &b.bytes);
    if (!dumpBuffers(dumpDir, files)) return kError;
  }
  if (!printName.empty()) {
    const BufferResult* found = nullptr;
    for (const BufferResult& b : r.buffers)
      if (b.name == printName) found = &b;
    if (!found) {
      std::fprintf(stderr, "ptxrun: error: no buffer named '%s'\n", printName.c_str());
      return kError;
    }
    std::string out;
    for (size_t i = 0; i * elemBytes(found->type) < found->bytes.size(); ++i) out += elementText(*found, i) + "\n";
    std::fputs(out.c_str(), stdout);
  }
  if (json) {
    nlohmann::json j;
    for (const BufferResult& b : r.buffers) {
      nlohmann::json values = nlohmann::json::array();
      for (size_t i = 0; i * elemBytes(b.type) < b.bytes.size(); ++i) {
        std::string t = elementText(b, i);
        if (t == "nan" || t == "-nan" || t == "inf" || t == "-inf") values.push_back(t);
        else values.push_back(nlohmann::json::parse(t));
      }
      j["buffers"][b.name] = {{"type", elemTypeName(b.type)}, {"values", values}};
    }
    j["stdout"] = r.stdoutText;
    std::printf("%s\n", j.dump(2).c_str());
  }
  if (wantMetrics) {
    nlohmann::json m = tools::metricsJson(r.metrics, perLine);
    if (opts.checkRaces) m["races"] = {{"races", races}, {"same_value_races", sameValueRaces}};
    std::printf("%s\n", m.dump(2).c_str());
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxrun: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "ptxrun: internal error\n");
  }
  return kInternal;
}
