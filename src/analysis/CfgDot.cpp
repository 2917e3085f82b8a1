#include "ptxopt/analysis/CfgDot.h"

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Loops.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/Process.h"

namespace ptxopt {

namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\t') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

bool renderDot(const std::string& dotPath, const std::string& format, const std::string& outPath, std::string& error) {
  std::string dot = findProgram("dot");
  if (dot.empty()) {
    error = "Graphviz 'dot' not found";
    return false;
  }
  ProcessResult r = runProcess({dot, "-T" + format, dotPath, "-o", outPath});
  if (!r.ok()) {
    error = "dot failed on '" + dotPath + "' (" + r.describe() + ")";
    return false;
  }
  return true;
}

std::string dotFileStem(const Function& f) {
  std::string out;
  for (char c : f.name()) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out.empty() ? std::string("function") : out;
}

std::string cfgToDot(const Function& f, FunctionAnalysisManager& am, std::string_view title) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const LoopInfo& loops = am.get<LoopAnalysis>();
  const UniformityInfo& uni = am.get<UniformityAnalysis>();
  std::string out = "digraph \"" + escape(f.name()) + "\" {\n";
  out += "  label=\"" + escape(title.empty() ? f.name() : title) + "\";\n  labelloc=t;\n";
  out += "  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=9];\n";
  constexpr size_t kMaxLines = 40;
  for (const BasicBlock* b : f.blocks()) {
    std::string label = escape(b->name()) + ":";
    int32_t n = cfg.index(b);
    if (n >= 0 && loops.isHeader(static_cast<uint32_t>(n)))
      label += "  (loop header, depth " + std::to_string(loops.loopDepth(static_cast<uint32_t>(n))) + ")";
    label += "\\l";
    size_t lines = 0, total = 0;
    for (const Instruction* i : b->insts()) {
      if (i->info().isPseudo()) continue;
      ++total;
      if (lines++ < kMaxLines) label += escape(printInstruction(f, *i)) + "\\l";
    }
    if (total > kMaxLines) label += "... (" + std::to_string(total - kMaxLines) + " more)\\l";
    out += "  b" + std::to_string(b->id()) + " [label=\"" + label + "\"";
    if (n < 0) out += ", style=dashed";
    else if (loops.isHeader(static_cast<uint32_t>(n))) out += ", style=bold, penwidth=2";
    out += "];\n";
  }
  for (const BasicBlock* b : f.blocks()) {
    const Instruction* t = b->terminator();
    bool conditional = b->succs().size() > 1 || (t && t->hasGuard());
    const char* color = !conditional || !cfg.reachable(b) ? "black" : uni.isDivergentBranch(b) ? "red" : "blue";
    for (const Edge& e : b->succs()) {
      std::string label = e.kind == EdgeKind::Taken ? "taken" : e.kind == EdgeKind::FallThrough ? "fall-through"
                                                                                                 : "brx " + std::to_string(e.index);
      out += "  b" + std::to_string(b->id()) + " -> b" + std::to_string(e.to->id()) + " [label=\"" + label +
             "\", color=" + color + ", fontcolor=" + color + "];\n";
    }
  }
  out += "}\n";
  return out;
}

}  // namespace ptxopt
