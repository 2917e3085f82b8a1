#include "ptxopt/fuzz/Campaign.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include "ptxopt/support/Process.h"

namespace ptxopt::fuzz {
namespace {

// The child reports one line per event, fields separated by tabs:
//   bad    -   verdict  dir  detail      the original failed its own checks
//   kernel                              the original passed them
//   ok     j
//   found  j   verdict  dir  detail
std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::vector<Pipeline> pipelinesFor(const CampaignOptions& o, uint64_t seed) {
  std::vector<Pipeline> out = o.pipelines;
  for (unsigned k = 0; k < o.randomPipelines; ++k) out.push_back(randomPipeline(seed * 1000003u + k, o.randomKnobs));
  for (Pipeline& p : out)
    for (const auto& [knob, value] : o.knobs) p.knobs[knob] = value;
  return out;
}

std::string findingDir(const CampaignOptions& o, uint64_t seed, size_t pipeline) {
  return o.outDir + "/seed-" + std::to_string(seed) + "-" + std::to_string(pipeline);
}

// The seed's whole check, in a child.
std::string checkSeed(const CampaignOptions& o, const KernelSource& source, uint64_t seed) {
  std::string name, ptx, error;
  emu::LaunchSpec spec;
  if (!source.make(seed, name, ptx, spec, error)) return "bad\t-\tbad-input\t-\tno kernel: " + firstLine(error) + "\n";
  KernelUnderTest kernel(name, ptx, spec, o.harness);
  std::string out;
  Outcome original = kernel.checkOriginal();
  if (original.verdict != Verdict::Ok) {
    std::string dir = o.outDir + (original.verdict == Verdict::PtxasHangsOnInput ? "/ptxas-hang-" : "/bad-input-") +
                      std::to_string(seed),
                werr;
    writeReproducer(dir, kernel, Pipeline{}, original, werr);
    return "bad\t-\t" + std::string(verdictName(original.verdict)) + "\t" + dir + "\t" + firstLine(original.detail) + "\n";
  }
  out += "kernel\n";
  std::vector<Pipeline> pipelines = pipelinesFor(o, seed);
  for (size_t j = 0; j < pipelines.size(); ++j) {
    Outcome r = kernel.checkPipeline(pipelines[j]);
    if (!isFinding(r.verdict)) {
      out += "ok\t" + std::to_string(j) + "\n";
      continue;
    }
    std::string dir = findingDir(o, seed, j), werr;
    if (!writeReproducer(dir, kernel, pipelines[j], r, werr)) dir = "(not written: " + werr + ")";
    out += "found\t" + std::to_string(j) + "\t" + verdictName(r.verdict) + "\t" + dir + "\t" + firstLine(r.detail) + "\n";
  }
  return out;
}

// A seed whose child died: find the pipeline that kills a child of its own and write its
// reproducer from here.
void pinpoint(const CampaignOptions& o, const KernelSource& source, uint64_t seed, const ProcessResult& died,
              CampaignSummary& s) {
  // The kernel, made in a child too: the generator may be what crashed.
  ProcessResult made = runInChild(
      [&] {
        std::string name, ptx, error;
        emu::LaunchSpec spec;
        if (!source.make(seed, name, ptx, spec, error)) return std::string();
        return name + '\0' + ptx + '\0' + emu::launchSpecToJson(spec);
      },
      o.timeoutSeconds);
  size_t a = made.out.find('\0'), b = a == std::string::npos ? a : made.out.find('\0', a + 1);
  emu::LaunchSpec spec;
  std::string error;
  if (!made.ok() || b == std::string::npos || !emu::parseLaunchSpec(made.out.substr(b + 1), "spec.json", spec, error)) {
    ++s.badInputs;
    s.lines.push_back("seed " + std::to_string(seed) + ": making the kernel failed (" + made.describe() + ")");
    return;
  }
  KernelUnderTest kernel(made.out.substr(0, a), made.out.substr(a + 1, b - a - 1), spec, o.harness);
  std::vector<Pipeline> pipelines = pipelinesFor(o, seed);
  for (size_t j = 0; j < pipelines.size(); ++j) {
    ProcessResult r = runInChild(
        [&] {
          KernelUnderTest k(kernel.name(), kernel.ptx(), kernel.spec(), o.harness);
          if (k.checkOriginal().verdict != Verdict::Ok) return std::string("bad");
          return std::string(verdictName(k.checkPipeline(pipelines[j]).verdict));
        },
        o.timeoutSeconds);
    if (r.end == ProcessResult::End::Exited && r.exitCode == 0) continue;
    Outcome outcome;
    outcome.verdict = r.end == ProcessResult::End::TimedOut ? Verdict::Hang : Verdict::Crash;
    outcome.detail = "the check ended by " + r.describe();
    std::string dir = findingDir(o, seed, j), werr;
    if (!writeReproducer(dir, kernel, pipelines[j], outcome, werr)) dir = "(not written: " + werr + ")";
    ++s.findings;
    ++s.byVerdict[verdictName(outcome.verdict)];
    s.lines.push_back("seed " + std::to_string(seed) + " " + pipelines[j].label + ": " + verdictName(outcome.verdict) + " (" +
                      dir + "): " + outcome.detail);
    return;
  }
  // Every pipeline passes alone: the seed as a whole ran out of time (or died for another
  // reason); report it without a reproducer.
  ++s.findings;
  ++s.byVerdict[died.end == ProcessResult::End::TimedOut ? "hang" : "crash"];
  s.lines.push_back("seed " + std::to_string(seed) + ": the seed's check ended by " + died.describe() +
                    ", though each pipeline passes alone");
}

}  // namespace

CampaignSummary runCampaign(const CampaignOptions& o, const KernelSource& source) {
  CampaignSummary s;
  auto start = std::chrono::steady_clock::now();
  uint64_t count = o.lastSeed >= o.firstSeed ? o.lastSeed - o.firstSeed + 1 : 0;
  runInChildren(
      count, o.jobs, o.timeoutSeconds, [&](size_t i) { return checkSeed(o, source, o.firstSeed + i); },
      [&](size_t i, ProcessResult&& r) {
        uint64_t seed = o.firstSeed + i;
        if (!(r.end == ProcessResult::End::Exited && r.exitCode == 0)) {
          ++s.kernels;
          pinpoint(o, source, seed, r, s);
        } else {
          std::istringstream in(r.out);
          std::string line;
          std::vector<Pipeline> pipelines;
          while (std::getline(in, line)) {
            std::vector<std::string> f;
            std::istringstream fields(line);
            for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
            if (f.empty()) continue;
            if (f[0] == "bad" && f.size() >= 5) {
              ++s.kernels;
              ++(f[2] == verdictName(Verdict::PtxasHangsOnInput) ? s.ptxasHangs : s.badInputs);
              s.lines.push_back("seed " + std::to_string(seed) + ": " + f[2] + " (" + f[3] + "): " + f[4]);
            } else if (f[0] == "kernel") {
              ++s.kernels;
            } else if (f[0] == "ok" || f[0] == "found") {
              ++s.pipelines;
              if (f[0] == "found" && f.size() >= 5) {
                if (pipelines.empty()) pipelines = pipelinesFor(o, seed);
                const Pipeline& p = pipelines[std::stoul(f[1])];
                ++s.findings;
                ++s.byVerdict[f[2]];
                s.lines.push_back("seed " + std::to_string(seed) + " " + p.label + ": " + f[2] + " (" + f[3] + "): " + f[4]);
              }
            }
          }
        }
        s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (o.progress) o.progress(s);
      });
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

std::string summaryTable(const CampaignSummary& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%llu kernels, %llu pipelines, %llu mismatches, %.1f kernels/s",
                static_cast<unsigned long long>(s.kernels), static_cast<unsigned long long>(s.pipelines),
                static_cast<unsigned long long>(s.findings), s.seconds > 0 ? static_cast<double>(s.kernels) / s.seconds : 0.0);
  std::string out = buf;
  if (s.badInputs) out += ", " + std::to_string(s.badInputs) + " bad inputs";
  if (s.ptxasHangs)
    out += ", " + std::to_string(s.ptxasHangs) + " inputs that ptxas does not finish (a ptxas bug: 'ptxfuzz reduce' shrinks them)";
  for (const auto& [v, n] : s.byVerdict) out += "\n  " + v + ": " + std::to_string(n);
  return out;
}

}  // namespace ptxopt::fuzz
