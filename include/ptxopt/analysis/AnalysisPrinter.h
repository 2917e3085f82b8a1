// Readable, testable text forms of the analyses (`ptxopt --print-analysis=...`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ptxopt/analysis/AnalysisManager.h"

namespace ptxopt {

// The analyses that can be printed, by their kName: cfg, dom, postdom, domfrontier, loops,
// liveness, reaching-defs, uniformity, memspace.
const std::vector<std::string_view>& printableAnalyses();
bool isPrintableAnalysis(std::string_view name);

// Appends the named analysis of `f` to `out`.
void printAnalysis(std::string_view name, const Function& f, FunctionAnalysisManager& am, std::string& out);

}  // namespace ptxopt
