#include "ptxopt/analysis/AnalysisPrinter.h"

#include <algorithm>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Loops.h"
#include "ptxopt/analysis/MemorySpace.h"
#include "ptxopt/analysis/ThreadSlots.h"
#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt {

namespace {

std::string regSet(const Function& f, const BitVector& bits) {
  std::string out = "{";
  bool first = true;
  bits.forEach([&](size_t r) {
    if (!first) out += ", ";
    first = false;
    out += f.regName(static_cast<RegId>(r));
  });
  return out + "}";
}

std::string lineOf(const Instruction* i) { return "line " + std::to_string(i->loc().line); }

void printTree(const CfgInfo& cfg, const DomTree& t, uint32_t virtualExit, std::string& out) {
  auto name = [&](uint32_t n) { return n == virtualExit ? std::string("<exit>") : cfg.rpo[n]->name(); };
  std::vector<std::pair<uint32_t, uint32_t>> stack{{t.root(), 0}};
  while (!stack.empty()) {
    auto [n, depth] = stack.back();
    stack.pop_back();
    out += std::string(2 + 2 * depth, ' ') + name(n) + "\n";
    const auto& kids = t.children(n);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.emplace_back(*it, depth + 1);
  }
}

std::string names(const CfgInfo& cfg, const std::vector<uint32_t>& nodes) {
  std::string out;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (k) out += ", ";
    out += cfg.rpo[nodes[k]]->name();
  }
  return out;
}

}  // namespace

const std::vector<std::string_view>& printableAnalyses() {
  static const std::vector<std::string_view> kNames = {
      CfgAnalysis::kName,       DominatorAnalysis::kName, PostDominatorAnalysis::kName, DominanceFrontierAnalysis::kName, LoopAnalysis::kName,
      LivenessAnalysis::kName,  ReachingDefsAnalysis::kName,  UniformityAnalysis::kName,        CtaUniformityAnalysis::kName,     MemorySpaceAnalysis::kName,
      ThreadSlotsAnalysis::kName};
  return kNames;
}

bool isPrintableAnalysis(std::string_view name) {
  const auto& v = printableAnalyses();
  return std::find(v.begin(), v.end(), name) != v.end();
}

void printAnalysis(std::string_view name, const Function& f, FunctionAnalysisManager& am, std::string& out) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  out += std::string(name) + " of function '" + std::string(f.name()) + "':\n";
  if (!f.hasBody) {
    out += "  (declaration)\n";
    return;
  }
  if (name == CfgAnalysis::kName) {
    for (uint32_t b = 0; b < cfg.size(); ++b) {
      out += "  " + cfg.rpo[b]->name() + " ->";
      for (uint32_t s : cfg.succ[b]) out += " " + cfg.rpo[s]->name();
      out += "\n";
    }
    for (const BasicBlock* b : cfg.unreachable) out += "  unreachable: " + b->name() + "\n";
  } else if (name == DominatorAnalysis::kName) {
    if (cfg.size()) printTree(cfg, am.get<DominatorAnalysis>().tree, UINT32_MAX, out);
    for (const BasicBlock* b : cfg.unreachable) out += "  unreachable: " + b->name() + "\n";
  } else if (name == PostDominatorAnalysis::kName) {
    const PostDominatorTree& pd = am.get<PostDominatorAnalysis>();
    printTree(cfg, pd.tree, pd.virtualExit, out);
    for (uint32_t a : pd.infiniteLoopAnchors)
      out += "  infinite loop: " + cfg.rpo[a]->name() + " is linked to <exit>\n";
  } else if (name == DominanceFrontierAnalysis::kName) {
    const DominanceFrontier& df = am.get<DominanceFrontierAnalysis>();
    for (uint32_t b = 0; b < cfg.size(); ++b) out += "  " + cfg.rpo[b]->name() + ": {" + names(cfg, df.frontier[b]) + "}\n";
  } else if (name == LoopAnalysis::kName) {
    const LoopInfo& li = am.get<LoopAnalysis>();
    if (li.loops.empty()) out += "  no loops\n";
    for (const Loop& L : li.loops) {
      out += std::string(2 * L.depth, ' ') + "loop " + cfg.rpo[L.header]->name() + " depth " + std::to_string(L.depth) +
             ": blocks {" + names(cfg, L.blocks) + "} latches {" + names(cfg, L.latches) + "} exits {";
      for (size_t k = 0; k < L.exits.size(); ++k) {
        if (k) out += ", ";
        out += cfg.rpo[L.exits[k].first]->name() + " -> " + cfg.rpo[L.exits[k].second]->name();
      }
      out += "}\n";
    }
    for (const IrreducibleRegion& r : li.irreducible)
      out += "  irreducible region: blocks {" + names(cfg, r.blocks) + "} entries {" + names(cfg, r.entries) + "}\n";
  } else if (name == LivenessAnalysis::kName) {
    const Liveness& lv = am.get<LivenessAnalysis>();
    for (const BasicBlock* b : f.blocks())
      out += "  " + b->name() + ": in " + regSet(f, lv.liveIn[b->id()]) + " out " + regSet(f, lv.liveOut[b->id()]) + "\n";
  } else if (name == ReachingDefsAnalysis::kName) {
    const ReachingDefs& rd = am.get<ReachingDefsAnalysis>();
    for (const BasicBlock* b : f.blocks())
      for (const Instruction* i : b->insts()) {
        if (i->info().isPseudo()) continue;
        std::vector<RegId> used;
        i->forEachUseReg([&](RegId r) {
          if (std::find(used.begin(), used.end(), r) == used.end()) used.push_back(r);
        });
        if (used.empty()) continue;
        out += "  " + lineOf(i) + " " + printInstruction(f, *i) + "\n";
        for (RegId r : used) {
          out += "    " + f.regName(r) + " <- ";
          auto defs = rd.reaching(i, r);
          if (defs.empty()) out += "(entry value)";
          for (size_t k = 0; k < defs.size(); ++k) {
            if (k) out += ", ";
            out += lineOf(rd.defs()[defs[k]].inst);
          }
          out += "\n";
        }
      }
  } else if (name == UniformityAnalysis::kName || name == CtaUniformityAnalysis::kName) {
    const UniformityInfo& ui =
        name == UniformityAnalysis::kName ? am.get<UniformityAnalysis>() : am.get<CtaUniformityAnalysis>();
    out += "  divergent registers: " + regSet(f, ui.everDivergent()) + "\n";
    for (const BasicBlock* b : cfg.rpo) {
      const Instruction* t = b->terminator();
      bool conditional = t && (t->hasGuard() || t->is(Opcode::BrxIdx));
      if (!conditional) continue;
      out += "  " + b->name() + ": " + (ui.isDivergentBranch(b) ? "divergent" : "uniform") + " branch (" +
             lineOf(t) + ": " + printInstruction(f, *t) + ")";
      if (t->is(Opcode::Bra) && t->has(Mod::Uni))
        out += ui.isDivergentBranch(b) ? "; the .uni hint is contradicted" : "; the .uni hint is confirmed";
      out += "\n";
    }
  } else if (name == MemorySpaceAnalysis::kName) {
    const MemorySpaceInfo& ms = am.get<MemorySpaceAnalysis>();
    for (const MemAccess& a : ms.accesses) {
      std::string space = a.space == StateSpace::Generic ? "generic, could be shared or global"
                                                          : std::string(spaceName(a.space)).substr(1);
      out += "  " + lineOf(a.inst) + " " + printInstruction(f, *a.inst) + " -> " + space + " (" + a.how + ")\n";
    }
    if (ms.accesses.empty()) out += "  no memory accesses\n";
  } else if (name == ThreadSlotsAnalysis::kName) {
    const ThreadSlots& ts = am.get<ThreadSlotsAnalysis>();
    if (!ts.oneDimensional) out += "  no .reqntid X, 1, 1: %tid.x does not identify a thread of the CTA\n";
    const MemorySpaceInfo& ms = am.get<MemorySpaceAnalysis>();
    for (size_t c = 0; c < ts.classes.size(); ++c) {
      const SlotClass& sc = ts.classes[c];
      out += "  class " + std::to_string(c) + ": " + sc.form + "; stride " + std::to_string(sc.stride) + ", offsets [" +
             std::to_string(sc.lo) + ", " + std::to_string(sc.hi) + "): " +
             (sc.privateSlots ? "each thread's own bytes" : "threads' bytes overlap") + "\n";
      for (const MemAccess& a : ms.accesses) {
        auto it = ts.classOf.find(a.inst);
        if (it != ts.classOf.end() && it->second == c) out += "    " + lineOf(a.inst) + " " + printInstruction(f, *a.inst) + "\n";
      }
    }
    if (ts.oneDimensional && ts.classes.empty()) out += "  no access addresses a function of %tid.x\n";
  }
}

std::vector<std::string> staleAnalyses(const Function& f, FunctionAnalysisManager& am) {
  std::vector<std::string> stale;
  FunctionAnalysisManager fresh(f);
  for (std::string_view name : am.cachedNames()) {
    if (!isPrintableAnalysis(name)) continue;
    std::string cached, recomputed;
    printAnalysis(name, f, am, cached);
    printAnalysis(name, f, fresh, recomputed);
    if (cached != recomputed) stale.emplace_back(name);
  }
  return stale;
}

}  // namespace ptxopt
