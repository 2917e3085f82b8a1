#include "ptxopt/quality/Program.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "ptxopt/support/File.h"
#include "ptxopt/support/Hash.h"

namespace ptxopt::quality {
namespace {

using JsonValue = nlohmann::json;

uint64_t count(const JsonValue& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// The first byte at which two texts differ (the shorter one's length when one is a prefix).
size_t firstDifference(const std::string& a, const std::string& b) {
  size_t n = std::min(a.size(), b.size()), k = 0;
  while (k < n && a[k] == b[k]) ++k;
  return k;
}

}  // namespace

bool readProgramRun(const std::string& json, ProgramRun& out, std::string& error) {
  out = ProgramRun{};
  JsonValue j = JsonValue::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "ptxrun-exec-metrics") {
    error = "not a ptxrun exec --metrics file";
    return false;
  }
  out.passes = j.value("passes", "");
  for (const JsonValue& m : j.value("modules", JsonValue::array())) {
    if (!m.is_object()) continue;
    out.modules.push_back({m.value("name", ""), m.value("hash", ""), m.value("ptx", ""), m.value("optimized", true)});
  }
  for (const JsonValue& k : j.value("kernels", JsonValue::array())) {
    if (!k.is_object()) continue;
    ProgramRun::Kernel r;
    r.module = k.value("module", "");
    r.kernel = k.value("kernel", "");
    r.launches = count(k, "launches");
    r.warps = count(k, "warps");
    r.metrics.warpInstructions = count(k, "warp_instructions");
    r.metrics.threadInstructions = count(k, "thread_instructions");
    r.metrics.branches = count(k, "branches");
    r.metrics.divergentBranches = count(k, "divergent_branches");
    r.metrics.barriers = count(k, "barriers");
    r.metrics.maxReconvergenceDepth = static_cast<uint32_t>(count(k, "max_reconvergence_depth"));
    const JsonValue perLine = k.value("per_line", JsonValue::object());
    for (const auto& [line, lm] : perLine.items()) {
      emu::LineMetrics& l = r.metrics.perLine[static_cast<uint32_t>(std::strtoul(line.c_str(), nullptr, 10))];
      l.warpInstructions = count(lm, "warp_instructions");
      l.threadInstructions = count(lm, "thread_instructions");
      l.branches = count(lm, "branches");
      l.divergentBranches = count(lm, "divergent_branches");
    }
    out.kernels.push_back(std::move(r));
  }
  return true;
}

std::vector<Measurement> measureProgramRun(const ProgramRun& run, const std::string& program,
                                           const std::string& pipeline, const Tools& tools,
                                           const std::string& workDir) {
  std::vector<Measurement> out(run.kernels.size());
  for (size_t k = 0; k < out.size(); ++k) {
    Measurement& m = out[k];
    const ProgramRun::Kernel& r = run.kernels[k];
    m.file = program + "/" + r.module;
    m.kernel = r.kernel;
    m.pipeline = pipeline;
    m.metrics = r.metrics;
    m.metrics.perLine.clear();
    m.warps = r.warps;
  }
  std::string error;
  std::set<std::string> known;
  for (const ProgramRun::Module& mod : run.modules) {
    known.insert(mod.name);
    std::vector<KernelRun> kernels;
    for (size_t k = 0; k < out.size(); ++k)
      if (run.kernels[k].module == mod.name) kernels.push_back({&out[k], &run.kernels[k].metrics.perLine});
    if (kernels.empty()) continue;  // no kernel of it was launched
    std::string why;
    if (!mod.optimized)
      why = "the module ran as built: the passes failed on it (the run's stderr says why)";
    else if (mod.ptx.find(".loc") == std::string::npos)
      why =
          "the module's text has no .loc lines (ptxrun exec --loc-self prints them): its SASS cannot be tied to its "
          "lines";
    std::string path = workDir + "/" + mod.name + (mod.name.ends_with(".ptx") ? "" : ".ptx");
    if (why.empty() && (!makeDirectory(workDir, error) || !writeFile(path, mod.ptx, error))) why = error;
    if (!why.empty()) {
      for (KernelRun& k : kernels) k.m->error = why;
      continue;
    }
    for (KernelRun& k : kernels) k.m->optimizedPath = path;
    measureSass(path, mod.ptx, tools, kernels);
  }
  for (size_t k = 0; k < out.size(); ++k)
    if (!known.count(run.kernels[k].module))
      out[k].error = "the metrics name no module '" + run.kernels[k].module + "'";
  return out;
}

Measurement programTotal(const std::vector<Measurement>& kernels, const std::string& program,
                         const std::string& pipeline) {
  Measurement t;
  t.file = program;
  t.kernel = "(total)";
  t.pipeline = pipeline;
  t.main.arch = kernels.empty() ? "" : kernels[0].main.arch;
  t.second.arch = kernels.empty() ? "" : kernels[0].second.arch;
  if (kernels.empty()) t.error = "no kernel ran";
  double estimate = 0, covered = 0, instructions = 0;
  bool allEstimated = !kernels.empty();
  std::set<std::string> modules;
  for (const Measurement& m : kernels) {
    if (t.error.empty() && !m.error.empty()) t.error = m.kernel + ": " + m.error;
    t.metrics.add(m.metrics);
    t.warps += m.warps;
    for (auto [from, to] : {std::pair{&m.main, &t.main}, std::pair{&m.second, &t.second}}) {
      if (!from->ok()) {
        if (to->ok()) to->error = m.kernel + ": " + from->error;
        continue;
      }
      to->census.add(from->census);
      to->registers = std::max(to->registers, from->registers);
      to->spillStores += from->spillStores;
      to->spillLoads += from->spillLoads;
    }
    allEstimated = allEstimated && m.dynSassEstimate.has_value();
    if (m.dynSassEstimate) estimate += *m.dynSassEstimate;
    covered += m.lineCoverage * static_cast<double>(m.main.census.instructions);
    instructions += static_cast<double>(m.main.census.instructions);
    if (modules.insert(m.file).second) {  // the kernels of a module share its ptxas run
      t.ptxasSeconds += m.ptxasSeconds;
      t.ptxoptSeconds += m.ptxoptSeconds;
    }
  }
  if (allEstimated) t.dynSassEstimate = estimate;
  t.lineCoverage = instructions > 0 ? covered / instructions : 0;
  return t;
}

bool collectOutputs(const std::string& dir, std::string stdoutText, ProgramOutputs& out, std::string& error) {
  out = ProgramOutputs{};
  out.dir = dir;
  out.stdoutText = std::move(stdoutText);
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string path = it->path().string(), contents;
    if (!readFile(path, contents, error)) return false;
    out.files[std::filesystem::relative(it->path(), dir, ec).string()] = {contents.size(), fnv1a(contents)};
  }
  if (ec) {
    error = "cannot list " + dir + ": " + ec.message();
    return false;
  }
  return true;
}

std::string outputsDigest(const ProgramOutputs& o) {
  uint64_t h = fnv1a(o.stdoutText);
  for (const auto& [name, sizeHash] : o.files) {
    h = fnv1a(name, h ^ 0x9e3779b97f4a7c15ull);
    h = fnv1a(hex16(sizeHash.first) + hex16(sizeHash.second), h);
  }
  return hex16(h);
}

std::vector<std::string> compareOutputs(const ProgramOutputs& base, const ProgramOutputs& other) {
  std::vector<std::string> out;
  auto sizes = [](size_t a, size_t b) { return " (" + std::to_string(a) + " and " + std::to_string(b) + " bytes)"; };
  if (base.stdoutText != other.stdoutText)
    out.push_back("stdout differs at byte " + std::to_string(firstDifference(base.stdoutText, other.stdoutText)) +
                  sizes(base.stdoutText.size(), other.stdoutText.size()));
  for (const auto& [name, sizeHash] : base.files) {
    auto it = other.files.find(name);
    if (it == other.files.end()) {
      out.push_back("file " + name + " is missing");
    } else if (it->second != sizeHash) {
      std::string a, b, error;
      std::string where = readFile(base.dir + "/" + name, a, error) && readFile(other.dir + "/" + name, b, error)
                              ? " at byte " + std::to_string(firstDifference(a, b))
                              : "";
      out.push_back("file " + name + " differs" + where + sizes(sizeHash.first, it->second.first));
    }
  }
  for (const auto& [name, sizeHash] : other.files)
    if (!base.files.count(name)) out.push_back("file " + name + " was not written by the baseline");
  return out;
}

}  // namespace ptxopt::quality
