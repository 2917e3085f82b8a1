#include "MetricsJson.h"

namespace ptxopt::tools {

namespace {

// The counts that a whole run and each line share.
template <typename M>
nlohmann::json countsJson(const M& m) {
  nlohmann::json j;
  j["warp_instructions"] = m.warpInstructions;
  j["thread_instructions"] = m.threadInstructions;
  j["simt_efficiency"] = emu::simtEfficiency(m.threadInstructions, m.warpInstructions);
  j["branches"] = m.branches;
  j["divergent_branches"] = m.divergentBranches;
  return j;
}

}  // namespace

nlohmann::json metricsJson(const emu::Metrics& m, bool perLine) {
  nlohmann::json j = countsJson(m);
  j["barriers"] = m.barriers;
  j["max_reconvergence_depth"] = m.maxReconvergenceDepth;
  if (!m.uniSplits.empty()) {
    nlohmann::json splits = nlohmann::json::object();
    for (const auto& [line, n] : m.uniSplits) splits[std::to_string(line)] = n;
    j["uni_splits"] = splits;
  }
  if (perLine) {
    nlohmann::json lines = nlohmann::json::object();
    for (const auto& [line, lm] : m.perLine) lines[std::to_string(line)] = countsJson(lm);
    j["per_line"] = lines;
  }
  return j;
}

}  // namespace ptxopt::tools
