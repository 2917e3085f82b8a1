// Graphviz pictures of a function's CFG: blocks with their labels and instructions; edges
// labelled taken, fall-through or brx index; edges of divergent branches in red and of uniform
// conditional branches in blue; loop headers drawn bold with their depth; unreachable blocks
// dashed.
#pragma once

#include <string>
#include <string_view>

#include "ptxopt/analysis/AnalysisManager.h"

namespace ptxopt {

std::string cfgToDot(const Function& f, FunctionAnalysisManager& am, std::string_view title = {});
// A file-name-safe stem made of the function's name ("_Z3fooPi").
std::string dotFileStem(const Function& f);
// Runs Graphviz (`dot -T<format> dotPath -o outPath`, found on the PATH, no shell); false with
// `error` set when dot is missing or fails.
bool renderDot(const std::string& dotPath, const std::string& format, const std::string& outPath, std::string& error);

}  // namespace ptxopt
