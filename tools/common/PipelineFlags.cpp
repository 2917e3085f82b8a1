#include "PipelineFlags.h"

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptxopt/support/File.h"

namespace ptxopt::tools {

void addPipelineFlags(CLI::App& app, PipelineFlags& flags) {
  auto* olevel = app.add_option("-O", flags.optLevel, "optimization level 0-3 (default 2); see --list-passes")
                     ->check(CLI::Range(0u, 3u));
  app.add_option("--passes", flags.passes, "run exactly these passes, comma-separated, instead of an -O pipeline")
      ->excludes(olevel);
  app.add_option("--disable-pass", flags.disabled,
                 "skip this pass (repeatable, or a comma list); also PTXOPT_DISABLED_PASSES")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--knob", flags.knobs, "set a pass knob: PASS.KNOB=VALUE (repeatable)")->allow_extra_args(false);
  app.add_option("--profile-use", flags.profileUse,
                 "a branch profile of this file from ptxrun --profile-out: the cost models weigh each branch by "
                 "how often its warps diverged");
  app.add_option("--remarks", flags.remarks, "write each pass decision as a JSON line to this file");
  app.add_flag("--verify-each", flags.verifyEach, "check the IR after every pass and name the pass that broke it");
}

bool pipelineOptions(const PipelineFlags& flags, PassManagerOptions& out, std::string& error) {
  out.pipeline.clear();
  if (!flags.passes.empty()) {
    out.pipeline = splitList(flags.passes);
  } else {
    for (std::string_view n : pipelineForLevel(flags.optLevel)) out.pipeline.emplace_back(n);
  }
  for (const std::string& d : flags.disabled) out.disabled.insert(d);
  if (const char* env = std::getenv("PTXOPT_DISABLED_PASSES"))
    for (const std::string& d : splitList(env)) out.disabled.insert(d);
  for (const std::string& k : flags.knobs) {
    size_t eq = k.find('=');
    if (eq == std::string::npos) {
      error = "--knob takes PASS.KNOB=VALUE, found '" + k + "'";
      return false;
    }
    out.knobs[k.substr(0, eq)] = k.substr(eq + 1);
  }
  out.verifyEach = flags.verifyEach;
  return true;
}

std::string pipelineText(const PassManager& pm) {
  std::string list;
  for (const PassInfo* p : pm.passes()) list += (list.empty() ? "" : ",") + std::string(p->name);
  return list.empty() ? "(no passes)" : list;
}

bool loadProfile(const std::string& path, const Module& m, std::string_view text, const std::string& displayName,
                 bool onlyFunctionsOf, BranchProfile& profile, std::string& warnings, std::string& error) {
  std::string json, hash = ptxTextHash(text);
  if (!readFile(path, json, error) || !parseBranchProfile(json, path, profile, error, hash)) return false;
  if (!profile.modulesInFile.empty() && !profile.modulesInFile.count(hash)) {
    std::string names;
    for (const auto& [h, name] : profile.modulesInFile)
      names += (names.empty() ? "" : ", ") + name + " (" + h + ")";
    warnings += fmt::format("{}: warning: the profile was recorded on {}, not on {} (text hash {}): its entries are "
                            "not used (lines of another text name other branches)\n",
                            path, names, displayName, hash);
    return true;
  }
  // A profile of another file (or of this one before it changed) would steer the cost models by
  // the wrong branches: say so, and use the entries that still fit.
  if (onlyFunctionsOf)
    std::erase_if(profile.branches, [&](const auto& entry) { return !m.findFunction(entry.first.first); });
  std::vector<std::string> stray = unmatchedProfileEntries(profile, m);
  for (size_t k = 0; k < stray.size() && k < 5; ++k)
    warnings += fmt::format("{}: warning: profile entry {} names no such branch of {}\n", path, stray[k], displayName);
  if (stray.size() > 5) warnings += fmt::format("{}: warning: ... and {} more\n", path, stray.size() - 5);
  return true;
}

std::string remarkJson(const Remark& r) {
  nlohmann::json j;
  j["pass"] = r.pass;
  j["function"] = r.function;
  j["block"] = r.block;
  j["decision"] = r.decision;
  j["reason"] = r.reason;
  j["figures"] = nlohmann::json::object();
  for (const auto& [k, v] : r.figures) j["figures"][k] = v;
  return j.dump();
}

}  // namespace ptxopt::tools
