#include "ptxopt/quality/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ptxopt/analysis/CfgDot.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/support/File.h"

namespace ptxopt::quality {
namespace {

using Json = nlohmann::ordered_json;

Json targetJson(const TargetFigures& t) {
  Json j;
  j["arch"] = t.arch;
  if (!t.ok()) {
    j["error"] = t.error;
    return j;
  }
  for (const CensusField& f : kCensusFields) j[f.key] = t.census.*f.member;
  j["registers"] = t.registers;
  j["spill_stores"] = t.spillStores;
  j["spill_loads"] = t.spillLoads;
  return j;
}

void targetFromJson(const Json& j, TargetFigures& t) {
  t.arch = j.value("arch", "");
  t.error = j.value("error", "");
  if (!t.ok()) return;
  for (const CensusField& f : kCensusFields) t.census.*f.member = j.value(f.key, 0ull);
  t.registers = j.value("registers", -1);
  t.spillStores = j.value("spill_stores", 0ull);
  t.spillLoads = j.value("spill_loads", 0ull);
}

Json measurementJson(const Measurement& m, const bool* identical = nullptr) {
  Json j;
  j["file"] = m.file;
  j["kernel"] = m.kernel;
  j["pipeline"] = m.pipeline;
  if (!m.error.empty()) j["error"] = m.error;
  Json main = targetJson(m.main);
  for (auto it = main.begin(); it != main.end(); ++it)
    if (it.key() != "arch") j[it.key() == "error" ? "sass_error" : it.key()] = it.value();
  j["arch"] = m.main.arch;
  j["warp_instructions"] = m.metrics.warpInstructions;
  j["thread_instructions"] = m.metrics.threadInstructions;
  j["simt_efficiency"] = m.metrics.simtEfficiency();
  j["branches"] = m.metrics.branches;
  j["divergent_branches"] = m.metrics.divergentBranches;
  j["barriers"] = m.metrics.barriers;
  j["max_reconvergence_depth"] = m.metrics.maxReconvergenceDepth;
  j["warps"] = m.warps;
  if (m.dynSassEstimate) j["dyn_sass_estimate"] = *m.dynSassEstimate;
  if (identical) j["identical"] = *identical;
  j["line_coverage"] = m.lineCoverage;
  j["ptxopt_seconds"] = m.ptxoptSeconds;
  j["ptxas_seconds"] = m.ptxasSeconds;
  j["second_target"] = targetJson(m.second);
  if (!m.fault.empty()) j["fault"] = m.fault;
  j["result_digest"] = m.resultDigest;
  j["optimized_ptx"] = m.optimizedPath;
  return j;
}

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fmt(double v, int digits = 3) {
  char buf[64];
  if (std::fabs(v) >= 1e6)
    std::snprintf(buf, sizeof buf, "%.4g", v);
  else if (v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string kernelKey(const Row& r) { return r.m.file + "\x1f" + r.m.kernel; }
std::string kernelLabel(const Row& r) {
  std::string f = r.m.file.substr(r.m.file.find_last_of('/') + 1);
  std::string dir = r.m.file.find('/') != std::string::npos ? r.m.file.substr(0, r.m.file.find_last_of('/')) : "";
  dir = dir.substr(dir.find_last_of('/') + 1);
  std::string stem = f.substr(0, f.rfind(".ptx"));
  return (dir.empty() ? "" : dir + "/") + stem + (r.m.kernel.empty() || r.m.kernel == stem ? "" : ":" + r.m.kernel);
}

// Rows grouped by kernel, in first-seen order: kernel -> pipeline -> row.
struct Table {
  std::vector<std::string> kernels;
  std::map<std::string, std::map<std::string, const Row*>> cells;
  std::map<std::string, std::string> labels;
  std::set<std::string> totals;  // the keys of programs' total rows
};
Table tableOf(const std::vector<Row>& rows) {
  Table t;
  for (const Row& r : rows) {
    std::string k = kernelKey(r);
    if (!t.cells.count(k)) {
      t.kernels.push_back(k);
      t.labels[k] = kernelLabel(r);
    }
    if (r.total) t.totals.insert(k);
    t.cells[k][r.m.pipeline] = &r;
  }
  return t;
}

// ptxopt-bench --program's whole-program table: per program total row and pipeline, each figure
// and its ratio to the baseline's, and whether the outputs agree.
struct ProgramFigure {
  const char* key;
  const char* title;
};
const ProgramFigure kProgramFigures[] = {
    {"dyn_sass_estimate", "dyn SASS"},
    {"sass_instructions", "SASS"},
    {"sass_bra", "BRA"},
    {"sass_bssy", "BSSY"},
    {"sass_bsync", "BSYNC"},
    {"sass_bar", "BAR"},
    {"warp_instructions", "warp instr"},
    {"simt_efficiency", "SIMT eff"},
};
// Rows of cells (strings) of that table: a header, then one row per total and pipeline.
std::vector<std::vector<std::string>> programTable(const Table& t, const ReportOptions& o) {
  std::vector<std::vector<std::string>> out;
  if (t.totals.empty() || o.pipelines.empty()) return out;
  std::vector<std::string> head{"program", "pipeline"};
  for (const ProgramFigure& f : kProgramFigures) head.push_back(f.title);
  head.push_back("outputs");
  out.push_back(head);
  for (const std::string& k : t.kernels) {
    if (!t.totals.count(k)) continue;
    const auto& cells = t.cells.at(k);
    auto base = cells.find(o.pipelines[0]);
    for (const std::string& p : o.pipelines) {
      auto c = cells.find(p);
      if (c == cells.end()) continue;
      std::vector<std::string> row{t.labels.at(k).substr(0, t.labels.at(k).rfind(":(total)")), p};
      for (const ProgramFigure& f : kProgramFigures) {
        double v, b;
        if (!figure(*c->second, f.key, v)) {
          row.push_back("-");
          continue;
        }
        std::string cell = fmt(v, 3);
        if (base != cells.end() && figure(*base->second, f.key, b) && b > 0) cell += " (" + fmt(v / b, 4) + ")";
        row.push_back(cell);
      }
      row.push_back(!c->second->m.error.empty() ? "error" : c->second->identical ? "same" : "DIFFER");
      out.push_back(row);
    }
  }
  return out;
}

struct FigureInfo {
  const char* key;
  const char* title;
  bool higherIsBetter;
};
const FigureInfo kChartFigures[] = {
    {"dyn_sass_estimate", "Estimated dynamic SASS instructions", false},
    {"sass_instructions", "Static SASS instructions (sm_90)", false},
    {"sass_branches", "SASS branches (BRA + BRX)", false},
    {"warp_instructions", "Warp instructions (ptxrun)", false},
    {"simt_efficiency", "SIMT efficiency (ptxrun)", true},
};
const FigureInfo kTableFigures[] = {
    {"dyn_sass_estimate", "dyn SASS", false}, {"sass_instructions", "SASS", false}, {"sass_bra", "BRA", false},
    {"sass_brx", "BRX", false},       {"sass_bssy", "BSSY", false},          {"sass_bar", "BAR", false},
    {"sass_predicated", "@P", false}, {"registers", "regs", false},         {"warp_instructions", "warp instr", false},
    {"simt_efficiency", "SIMT eff", true}, {"divergent_branches", "div br", false}, {"barriers", "barriers", false},
};

const char* kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1"};

// The CFG of `kernel` in the module at `ptxPath` as inline SVG (Graphviz); empty when there is
// no picture to be had.
std::string svgCfg(const std::string& ptxPath, const std::string& kernel) {
  std::string text, error;
  if (!readFile(ptxPath, text, error)) return {};
  DiagEngine diags;
  auto m = loadModule(text, ptxPath, diags);
  if (!m) return {};
  for (const auto& f : m->functions()) {
    if (f->name() != kernel || !f->hasBody) continue;
    FunctionAnalysisManager am(*f);
    std::string dotPath = ptxPath + ".cfg.dot", svgPath = ptxPath + ".cfg.svg", svg;
    if (!writeFile(dotPath, cfgToDot(*f, am), error) || !renderDot(dotPath, "svg", svgPath, error) ||
        !readFile(svgPath, svg, error))
      return {};
    size_t at = svg.find("<svg");
    return at == std::string::npos ? std::string() : svg.substr(at);
  }
  return {};
}

}  // namespace

bool figure(const Row& r, const std::string& key, double& value) {
  const Measurement& m = r.m;
  if (!m.error.empty()) return false;
  const SassCensus& c = m.main.census;
  if (m.main.ok()) {
    for (const CensusField& f : kCensusFields)
      if (key == f.key) {
        value = static_cast<double>(c.*f.member);
        return true;
      }
    if (key == "sass_branches") {
      value = static_cast<double>(c.bra + c.brx);
      return true;
    }
    if (key == "registers" && m.main.registers >= 0) {
      value = m.main.registers;
      return true;
    }
  }
  if (key == "dyn_sass_estimate") {
    if (!m.dynSassEstimate) return false;
    value = *m.dynSassEstimate;
  } else if (key == "warp_instructions") {
    value = static_cast<double>(m.metrics.warpInstructions);
  } else if (key == "simt_efficiency") {
    value = m.metrics.simtEfficiency();
  } else if (key == "divergent_branches") {
    value = static_cast<double>(m.metrics.divergentBranches);
  } else if (key == "barriers") {
    value = static_cast<double>(m.metrics.barriers);
  } else {
    return false;
  }
  return true;
}

double geometricMeanRatio(const std::vector<Row>& rows, const std::string& baseline, const std::string& pipeline,
                          const std::string& key, size_t* count) {
  Table t = tableOf(rows);
  double logSum = 0;
  size_t n = 0;
  for (const std::string& k : t.kernels) {
    auto& cells = t.cells[k];
    if (t.totals.count(k) || !cells.count(baseline) || !cells.count(pipeline)) continue;
    double a, b;
    if (!figure(*cells[baseline], key, a) || !figure(*cells[pipeline], key, b)) continue;
    if (a <= 0 && b <= 0) {  // 0 -> 0: unchanged
      ++n;
      continue;
    }
    if (a <= 0 || b <= 0) continue;
    logSum += std::log(b / a);
    ++n;
  }
  if (count) *count = n;
  return n ? std::exp(logSum / static_cast<double>(n)) : 1.0;
}

std::string rowJson(const Row& r) {
  Json j = measurementJson(r.m, &r.identical);
  if (r.total) j["total"] = true;
  return j.dump(2);
}

std::string qualityJson(const std::vector<Row>& rows) {
  std::string out = "[\n";
  for (size_t k = 0; k < rows.size(); ++k) {
    std::string obj = rowJson(rows[k]);
    // Indent the object by two spaces inside the array.
    std::string indented = "  ";
    for (char c : obj) {
      indented += c;
      if (c == '\n') indented += "  ";
    }
    out += indented + (k + 1 < rows.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

std::string measurementToLine(const Measurement& m) { return measurementJson(m).dump(); }

bool measurementFromLine(const std::string& line, Measurement& m, std::string& error) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "not a measurement: " + line.substr(0, 200);
    return false;
  }
  m = Measurement{};
  m.file = j.value("file", "");
  m.kernel = j.value("kernel", "");
  m.pipeline = j.value("pipeline", "");
  m.error = j.value("error", "");
  Json main = j;  // the main target's figures stand at the top level, its error as sass_error
  main["error"] = j.value("sass_error", "");
  targetFromJson(main, m.main);
  if (j.contains("second_target")) targetFromJson(j["second_target"], m.second);
  m.metrics.warpInstructions = j.value("warp_instructions", 0ull);
  m.metrics.threadInstructions = j.value("thread_instructions", 0ull);
  m.metrics.branches = j.value("branches", 0ull);
  m.metrics.divergentBranches = j.value("divergent_branches", 0ull);
  m.metrics.barriers = j.value("barriers", 0ull);
  m.metrics.maxReconvergenceDepth = j.value("max_reconvergence_depth", 0u);
  m.warps = j.value("warps", 0ull);
  if (j.contains("dyn_sass_estimate")) m.dynSassEstimate = j["dyn_sass_estimate"].get<double>();
  m.lineCoverage = j.value("line_coverage", 0.0);
  m.ptxoptSeconds = j.value("ptxopt_seconds", 0.0);
  m.ptxasSeconds = j.value("ptxas_seconds", 0.0);
  m.fault = j.value("fault", "");
  m.resultDigest = j.value("result_digest", "");
  m.optimizedPath = j.value("optimized_ptx", "");
  return true;
}

std::string summaryMarkdown(const std::vector<Row>& rows, const ReportOptions& o) {
  Table t = tableOf(rows);
  std::string out = "# ptxopt-bench: code quality\n\n";
  if (!o.command.empty()) out += "Made by `" + o.command + "`.\n\n";
  size_t errors = 0, differ = 0;
  for (const Row& r : rows) {
    if (r.total) continue;
    errors += !r.m.error.empty();
    differ += r.m.error.empty() && !r.identical;
  }
  out += std::to_string(t.kernels.size() - t.totals.size()) + " kernels x " + std::to_string(o.pipelines.size()) +
         " pipelines; " + std::to_string(errors) + " cells failed; " + std::to_string(differ) +
         " cells with results that differ from " +
         (o.pipelines.empty() ? std::string("the first pipeline") : o.pipelines[0]) + ".\n\n";
  if (o.pipelines.empty()) return out;
  const std::string& base = o.pipelines[0];
  if (!o.program.empty()) {
    out += "The program `" + o.program +
           "`: its stdout and the files it wrote in its working directory, compared with " + base +
           "'s: " + (o.outputDifferences.empty() ? std::string("the same under every pipeline") : "differences below") +
           ".\n\n";
  }
  if (auto pt = programTable(t, o); !pt.empty()) {
    out += "Whole program (the sum over its kernels; in parentheses, relative to " + base + "):\n\n";
    for (size_t r = 0; r < pt.size(); ++r) {
      out += "|";
      for (const std::string& c : pt[r]) out += " " + c + " |";
      out += "\n";
      if (r == 0) {
        out += "|";
        for (size_t c = 0; c < pt[0].size(); ++c) out += "---|";
        out += "\n";
      }
    }
    out += "\n";
  }
  if (!o.outputDifferences.empty()) {
    out += "Outputs that differ from " + base + "'s:\n\n";
    for (const std::string& d : o.outputDifferences) out += "* " + d + "\n";
    out += "\n";
  }
  out += "Geometric mean of each figure relative to " + base + " (below 1: fewer; for SIMT efficiency above 1 is better):\n\n";
  out += "| pipeline |";
  for (const FigureInfo& f : kChartFigures) out += std::string(" ") + f.title + " |";
  out += "\n|---|";
  for (size_t k = 0; k < std::size(kChartFigures); ++k) out += "---|";
  out += "\n";
  for (const std::string& p : o.pipelines) {
    out += "| " + p + " |";
    for (const FigureInfo& f : kChartFigures) {
      size_t n = 0;
      double g = geometricMeanRatio(rows, base, p, f.key, &n);
      out += " " + (n ? fmt(g, 4) + " (" + std::to_string(n) + ")" : std::string("-")) + " |";
    }
    out += "\n";
  }
  out += "\nPer kernel (each cell: value under each pipeline, in the order above):\n\n| kernel |";
  for (const FigureInfo& f : kTableFigures) out += std::string(" ") + f.title + " |";
  out += " identical |\n|---|";
  for (size_t k = 0; k <= std::size(kTableFigures); ++k) out += "---|";
  out += "\n";
  for (const std::string& k : t.kernels) {
    out += "| " + t.labels[k] + " |";
    for (const FigureInfo& f : kTableFigures) {
      std::string cell;
      for (const std::string& p : o.pipelines) {
        double v;
        auto it = t.cells[k].find(p);
        if (!cell.empty()) cell += " / ";
        cell += it != t.cells[k].end() && figure(*it->second, f.key, v) ? fmt(v, 3) : "-";
      }
      out += " " + cell + " |";
    }
    std::string same;
    for (const std::string& p : o.pipelines) {
      auto it = t.cells[k].find(p);
      if (!same.empty()) same += " / ";
      same += it == t.cells[k].end() ? "-" : !it->second->m.error.empty() ? "error" : it->second->identical ? "yes" : "NO";
    }
    out += " " + same + " |\n";
  }
  std::string failures;
  for (const Row& r : rows)
    if (!r.m.error.empty()) failures += "* " + kernelLabel(r) + " " + r.m.pipeline + ": " + r.m.error + "\n";
  if (!failures.empty()) out += "\nFailed cells:\n\n" + failures;
  return out;
}

std::string reportHtml(const std::vector<Row>& rows, const ReportOptions& o) {
  Table t = tableOf(rows);
  std::string h;
  h += "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ptxopt-bench report</title>\n<style>\n"
       "body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}\n"
       "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}\n"
       "th{background:#f0f0f0}td.k{text-align:left;font-family:monospace}\n"
       ".chart{margin:12px 0 28px 0}.cfg{display:flex;gap:16px;align-items:flex-start}.cfg div{flex:1;overflow:auto;"
       "border:1px solid #ddd;max-height:700px}.cfg svg{max-width:100%;height:auto}\n"
       ".bad{color:#c00;font-weight:bold}\n</style></head><body>\n";
  h += "<h1>ptxopt-bench: what the pipelines do to the code ptxas makes</h1>\n";
  if (!o.command.empty()) h += "<p>Made by <code>" + esc(o.command) + "</code>.</p>\n";
  if (o.pipelines.empty() || t.kernels.empty()) return h + "<p>No measurements.</p></body></html>\n";
  const std::string& base = o.pipelines[0];
  size_t differ = 0, errors = 0;
  for (const Row& r : rows) {
    if (r.total) continue;
    errors += !r.m.error.empty();
    differ += r.m.error.empty() && !r.identical;
  }
  h += "<p>" + std::to_string(t.kernels.size() - t.totals.size()) + " kernels &times; " +
       std::to_string(o.pipelines.size()) + " pipelines. Results differing from " + esc(base) + ": <span class=\"" +
       (differ ? "bad" : "") + "\">" + std::to_string(differ) + "</span>; failed cells: " + std::to_string(errors) +
       ".</p>\n";
  if (!o.program.empty())
    h += "<p>The program <code>" + esc(o.program) +
         "</code>: its stdout and the files it wrote in its working directory, compared with " + esc(base) +
         "'s.</p>\n";
  if (auto pt = programTable(t, o); !pt.empty()) {
    h += "<h2>Whole program (the sum over its kernels; in parentheses, relative to " + esc(base) + ")</h2>\n<table>";
    for (size_t r = 0; r < pt.size(); ++r) {
      h += "<tr>";
      for (size_t c = 0; c < pt[r].size(); ++c) {
        const std::string& v = pt[r][c];
        if (r == 0)
          h += "<th>" + esc(v) + "</th>";
        else if (c < 2)
          h += "<td class=\"k\">" + esc(v) + "</td>";
        else
          h += std::string("<td") + (v == "DIFFER" || v == "error" ? " class=\"bad\"" : "") + ">" + esc(v) + "</td>";
      }
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
  if (!o.outputDifferences.empty()) {
    h += "<h2 class=\"bad\">Outputs that differ from " + esc(base) + "'s</h2>\n<ul>\n";
    for (const std::string& d : o.outputDifferences) h += "<li>" + esc(d) + "</li>\n";
    h += "</ul>\n";
  }

  // Geometric means.
  h += "<h2>Geometric means relative to " + esc(base) + "</h2>\n<table><tr><th>pipeline</th>";
  for (const FigureInfo& f : kChartFigures) h += std::string("<th>") + f.title + "</th>";
  h += "</tr>\n";
  for (const std::string& p : o.pipelines) {
    h += "<tr><td class=\"k\">" + esc(p) + "</td>";
    for (const FigureInfo& f : kChartFigures) {
      size_t n = 0;
      double g = geometricMeanRatio(rows, base, p, f.key, &n);
      h += "<td>" + (n ? fmt(g, 4) : std::string("-")) + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n";

  // Charts: per figure, one row per kernel, one bar per pipeline (value relative to the
  // baseline), kernels sorted by the gain of the last pipeline.
  const std::string& last = o.pipelines.back();
  h += "<h2>Per kernel, relative to " + esc(base) + "</h2>\n<p>Legend: ";
  for (size_t p = 0; p < o.pipelines.size(); ++p)
    h += std::string("<span style=\"color:") + kColors[p % std::size(kColors)] + "\">&#9632;</span> " + esc(o.pipelines[p]) + " &nbsp; ";
  h += "(the dashed line is 1: the baseline; bars ending left of it are fewer instructions, or for SIMT efficiency worse)</p>\n";
  for (const FigureInfo& f : kChartFigures) {
    struct Item {
      std::string label;
      std::vector<double> ratios;  // per pipeline; < 0: missing
      double baseValue = 0;
      double sortKey = 0;
    };
    std::vector<Item> items;
    for (const std::string& k : t.kernels) {
      Item it;
      it.label = t.labels[k];
      double b;
      auto bc = t.cells[k].find(base);
      if (bc == t.cells[k].end() || !figure(*bc->second, f.key, b)) continue;
      it.baseValue = b;
      for (const std::string& p : o.pipelines) {
        double v;
        auto c = t.cells[k].find(p);
        if (c == t.cells[k].end() || !figure(*c->second, f.key, v))
          it.ratios.push_back(-1);
        else
          it.ratios.push_back(b > 0 ? v / b : (v > 0 ? 2.0 : 1.0));
      }
      double lastRatio = it.ratios.back() < 0 ? 1 : it.ratios.back();
      it.sortKey = f.higherIsBetter ? -lastRatio : lastRatio;
      items.push_back(std::move(it));
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.sortKey < b.sortKey; });
    double maxRatio = 1.2;
    for (const Item& it : items)
      for (double r : it.ratios) maxRatio = std::max(maxRatio, std::min(r, 3.0));
    const int labelW = 300, barW = 520, barH = 7, gap = 6;
    int rowH = static_cast<int>(o.pipelines.size()) * (barH + 1) + gap;
    int height = static_cast<int>(items.size()) * rowH + 30;
    h += std::string("<h3>") + f.title + " (sorted by " + esc(last) + ")</h3>\n<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         std::to_string(labelW + barW + 160) + "\" height=\"" + std::to_string(height) + "\" font-size=\"11\">\n";
    double scale = barW / maxRatio;
    int one = labelW + static_cast<int>(scale);
    for (size_t i = 0; i < items.size(); ++i) {
      int y = 10 + static_cast<int>(i) * rowH;
      const Item& it = items[i];
      h += "<text x=\"" + std::to_string(labelW - 6) + "\" y=\"" + std::to_string(y + rowH / 2) +
           "\" text-anchor=\"end\">" + esc(it.label) + "</text>\n";
      for (size_t p = 0; p < it.ratios.size(); ++p) {
        if (it.ratios[p] < 0) continue;
        int w = std::max(1, static_cast<int>(std::min(it.ratios[p], 3.0) * scale));
        int yy = y + static_cast<int>(p) * (barH + 1);
        h += "<rect x=\"" + std::to_string(labelW) + "\" y=\"" + std::to_string(yy) + "\" width=\"" + std::to_string(w) +
             "\" height=\"" + std::to_string(barH) + "\" fill=\"" + kColors[p % std::size(kColors)] + "\"><title>" +
             esc(it.label + " " + o.pipelines[p]) + ": " + fmt(it.ratios[p], 4) + " x " + fmt(it.baseValue) + "</title></rect>\n";
      }
      h += "<text x=\"" + std::to_string(labelW + barW + 8) + "\" y=\"" + std::to_string(y + rowH / 2) + "\">" +
           (it.ratios.back() < 0 ? std::string("-") : fmt(it.ratios.back(), 3)) + " (" + fmt(it.baseValue) + ")</text>\n";
    }
    h += "<line x1=\"" + std::to_string(one) + "\" y1=\"0\" x2=\"" + std::to_string(one) + "\" y2=\"" +
         std::to_string(height - 20) + "\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n</svg>\n";
  }

  // The table.
  h += "<h2>All figures</h2>\n<table><tr><th>kernel</th><th>pipeline</th>";
  for (const FigureInfo& f : kTableFigures) h += std::string("<th>") + f.title + "</th>";
  h += "<th>identical</th><th>ptxopt s</th><th>ptxas s</th></tr>\n";
  for (const std::string& k : t.kernels)
    for (const std::string& p : o.pipelines) {
      auto c = t.cells[k].find(p);
      if (c == t.cells[k].end()) continue;
      const Row& r = *c->second;
      h += "<tr><td class=\"k\">" + esc(t.labels[k]) + "</td><td class=\"k\">" + esc(p) + "</td>";
      if (!r.m.error.empty()) {
        h += "<td colspan=\"" + std::to_string(std::size(kTableFigures) + 3) + "\" class=\"bad\" style=\"text-align:left\">" +
             esc(r.m.error) + "</td></tr>\n";
        continue;
      }
      for (const FigureInfo& f : kTableFigures) {
        double v;
        h += "<td>" + (figure(r, f.key, v) ? fmt(v, 3) : std::string("-")) + "</td>";
      }
      h += std::string("<td") + (r.identical ? ">yes" : " class=\"bad\">NO") + "</td><td>" + fmt(r.m.ptxoptSeconds, 4) +
           "</td><td>" + fmt(r.m.ptxasSeconds, 3) + "</td></tr>\n";
    }
  h += "</table>\n";

  // CFG pictures of the kernels whose estimate (or static SASS) changed most.
  if (o.cfgPictures && o.pipelines.size() > 1) {
    std::vector<std::pair<double, std::string>> change;
    for (const std::string& k : t.kernels) {
      auto b = t.cells[k].find(base), l = t.cells[k].find(last);
      if (t.totals.count(k) || b == t.cells[k].end() || l == t.cells[k].end()) continue;
      double x, y;
      bool have = figure(*b->second, "dyn_sass_estimate", x) && figure(*l->second, "dyn_sass_estimate", y);
      if (!have && !(figure(*b->second, "warp_instructions", x) && figure(*l->second, "warp_instructions", y))) continue;
      if (x <= 0 || y <= 0 || x == y) continue;
      change.emplace_back(-std::fabs(std::log(y / x)), k);
    }
    std::sort(change.begin(), change.end());
    if (!change.empty()) h += "<h2>Control-flow graphs of the kernels that changed most (" + esc(base) + " | " + esc(last) + ")</h2>\n";
    for (size_t n = 0; n < change.size() && n < o.cfgPictures; ++n) {
      const std::string& k = change[n].second;
      const Row& b = *t.cells[k][base];
      const Row& l = *t.cells[k][last];
      std::string before = svgCfg(b.m.optimizedPath, b.m.kernel), after = svgCfg(l.m.optimizedPath, l.m.kernel);
      if (before.empty() || after.empty()) continue;
      h += "<h3>" + esc(t.labels[k]) + "</h3>\n<div class=\"cfg\"><div>" + before + "</div><div>" + after + "</div></div>\n";
    }
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace ptxopt::quality
