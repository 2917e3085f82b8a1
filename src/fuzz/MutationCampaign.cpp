#include <chrono>
#include <cstdio>

#include "ptxopt/fuzz/Harness.h"
#include "ptxopt/fuzz/Mutator.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Process.h"

namespace ptxopt::fuzz {
namespace {

// The architecture a file's `.target` names (sm_90a, sm_80), for ptxas; empty when none.
std::string targetArch(const std::string& ptx) {
  size_t at = ptx.find(".target");
  if (at == std::string::npos) return {};
  size_t start = ptx.find("sm_", at);
  if (start == std::string::npos || start > ptx.find('\n', at)) return {};
  size_t end = start;
  while (end < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[end])) || ptx[end] == '_')) ++end;
  return ptx.substr(start, end - start);
}

std::string firstNonEmptyLine(const std::string& s) {
  size_t a = s.find_first_not_of('\n');
  if (a == std::string::npos) return {};
  return s.substr(a, s.find('\n', a) - a);
}

}  // namespace

MutationReport runMutationCampaign(const MutationCampaignOptions& o) {
  MutationReport report;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> texts;
  for (const std::string& f : o.files) {
    std::string text, error;
    if (readFile(f, text, error)) texts.push_back(std::move(text));
    else texts.emplace_back();
  }
  if (texts.empty()) return report;
  // The child reports: "<kind> <ptxas 0/1> <ptxopt 0/1>\t<disagreement>" or "none".
  runInChildren(
      o.count, o.jobs, 600,
      [&](size_t i) -> std::string {
        uint64_t seed = o.seed * 1000003u + i;
        size_t file = static_cast<size_t>((seed * 0x9E3779B97F4A7C15ull) >> 33) % texts.size();
        MutationKind kind = static_cast<MutationKind>(i % static_cast<size_t>(MutationKind::NumKinds));
        Mutant m;
        std::string arch = targetArch(texts[file]);
        if (arch.empty() || !mutatePtx(texts[file], seed, kind, m)) return "none";
        PtxasResult ptxas = runPtxas(o.ptxas, arch, m.text, 300);
        if (ptxas.status == PtxasResult::Status::TimedOut) return "none";  // no answer to compare with
        const std::string& ptxasSays = ptxas.text;
        DiagEngine diags;
        bool ptxoptAccepts = loadModule(m.text, "mutant.ptx", diags) != nullptr;
        bool ptxasAccepts = ptxas.accepted();
        std::string line = std::string(mutationKindName(kind)) + " " + (ptxasAccepts ? "1" : "0") + " " + (ptxoptAccepts ? "1" : "0");
        if (ptxasAccepts != ptxoptAccepts) {
          std::string where = o.files[file] + ":" + std::to_string(m.line);
          std::string why = ptxasAccepts ? "ptxopt rejects: " + firstNonEmptyLine(diags.str()) : "ptxas rejects: " + firstNonEmptyLine(ptxasSays);
          line += "\t" + where + " " + mutationKindName(kind) + ": '" + m.before + "' -> '" + m.after + "' (" + why + ")";
          if (!o.outDir.empty()) {
            std::string error;
            if (makeDirectory(o.outDir, error))
              writeFile(o.outDir + "/mutant-" + std::to_string(i) + ".ptx", m.text, error);
          }
        }
        return line;
      },
      [&](size_t, ProcessResult&& r) {
        if (!r.ok()) {
          report.disagreements.push_back("a mutant's check ended by " + r.describe());
          return;
        }
        if (r.out == "none" || r.out.empty()) return;
        std::string head = r.out.substr(0, r.out.find('\t'));
        char name[64];
        int ptxasOk = 0, ptxoptOk = 0;
        if (std::sscanf(head.c_str(), "%63s %d %d", name, &ptxasOk, &ptxoptOk) != 3) return;
        auto kind = parseMutationKind(name);
        if (!kind) return;
        MutationCounts& c = report.byKind[static_cast<size_t>(*kind)];
        ++c.mutants;
        c.ptxasRejects += !ptxasOk;
        c.ptxoptRejects += !ptxoptOk;
        c.bothReject += !ptxasOk && !ptxoptOk;
        c.missed += !ptxasOk && ptxoptOk;
        c.falseRejects += ptxasOk && !ptxoptOk;
        size_t tab = r.out.find('\t');
        if (tab != std::string::npos) report.disagreements.push_back(r.out.substr(tab + 1));
      });
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::string mutationTable(const MutationReport& r) {
  std::string out = "| mutation | mutants | ptxas rejects | ptxopt rejects | of ptxas's rejections, ptxopt's | ptxas accepts, ptxopt rejects |\n"
                    "|---|---|---|---|---|---|\n";
  MutationCounts total;
  for (size_t k = 0; k < static_cast<size_t>(MutationKind::NumKinds); ++k) {
    const MutationCounts& c = r.byKind[k];
    total.mutants += c.mutants;
    total.ptxasRejects += c.ptxasRejects;
    total.ptxoptRejects += c.ptxoptRejects;
    total.bothReject += c.bothReject;
    total.missed += c.missed;
    total.falseRejects += c.falseRejects;
  }
  auto row = [&](const std::string& name, const MutationCounts& c) {
    char pct[32] = "-";
    if (c.ptxasRejects) std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * static_cast<double>(c.bothReject) / static_cast<double>(c.ptxasRejects));
    out += "| " + name + " | " + std::to_string(c.mutants) + " | " + std::to_string(c.ptxasRejects) + " | " +
           std::to_string(c.ptxoptRejects) + " | " + pct + " | " + std::to_string(c.falseRejects) + " |\n";
  };
  for (size_t k = 0; k < static_cast<size_t>(MutationKind::NumKinds); ++k)
    row(mutationKindName(static_cast<MutationKind>(k)), r.byKind[k]);
  row("all", total);
  return out;
}

}  // namespace ptxopt::fuzz
