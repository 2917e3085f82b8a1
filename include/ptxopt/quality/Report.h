// ptxopt-bench's outputs: quality.json (one object per kernel and pipeline), summary.md and
// index.html (a self-contained page: SVG bar charts, geometric means per pipeline, a table per
// kernel, and CFG pictures of the kernels that changed most).
#pragma once

#include <string>
#include <vector>

#include "ptxopt/quality/Measure.h"

namespace ptxopt::quality {

struct Row {
  Measurement m;
  bool identical = false;  // results equal to the first pipeline's
  // A whole program's sum over its kernels under the pipeline (ptxopt-bench --program): shown
  // in a table of its own and in the per-kernel table, left out of the geometric means.
  bool total = false;
};

// One JSON object (pretty-printed) with the keys docs/QUALITY.md lists.
std::string rowJson(const Row& r);
std::string qualityJson(const std::vector<Row>& rows);
// The measurement as a compact JSON line and back (children hand their cell to the parent).
std::string measurementToLine(const Measurement& m);
bool measurementFromLine(const std::string& line, Measurement& m, std::string& error);

struct ReportOptions {
  std::vector<std::string> pipelines;  // in the order given; the first is the baseline
  std::string command;                 // how the report was made, shown on the page
  unsigned cfgPictures = 3;            // kernels with before/after CFG pictures (Graphviz)
  // ptxopt-bench --program: the program's command line, and how each pipeline's outputs (stdout,
  // files written) differ from the baseline's, one line each ("PIPELINE: file F differs ...").
  std::string program;
  std::vector<std::string> outputDifferences;
};

std::string summaryMarkdown(const std::vector<Row>& rows, const ReportOptions& o);
std::string reportHtml(const std::vector<Row>& rows, const ReportOptions& o);

// Geometric mean over kernels of value(pipeline) / value(baseline) for one figure; rows
// without the figure on either side are left out. `count` gets how many kernels entered.
double geometricMeanRatio(const std::vector<Row>& rows, const std::string& baseline, const std::string& pipeline,
                          const std::string& figure, size_t* count = nullptr);
// A figure of a row by its JSON key ("sass_instructions", "dyn_sass_estimate", ...); false when
// the row does not have it.
bool figure(const Row& r, const std::string& key, double& value);

}  // namespace ptxopt::quality
