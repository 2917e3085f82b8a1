// One cell of ptxopt-bench's matrix: a kernel (PTX file and launch) under one pipeline. It
// optimizes the module, prints it with --loc-self lines, assembles it with ptxas -lineinfo -v
// for the main target and for a second one, disassembles both with nvdisasm, runs the optimized
// module in the emulator with per-line counts, and combines the two into the estimated dynamic
// SASS instructions (docs/QUALITY.md describes the model and its limits).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptxopt/emu/Emulator.h"
#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/fuzz/Harness.h"
#include "ptxopt/quality/Sass.h"

namespace ptxopt::quality {

struct Tools {
  std::string ptxas;     // empty: no SASS figures
  std::string nvdisasm;  // empty: no SASS figures
  std::string arch = "sm_90";
  std::string secondArch = "sm_80";  // empty: none
  unsigned timeoutSeconds = 120;     // one ptxas or nvdisasm run
  // A directory where the cells of one run share what ptxas and nvdisasm said about a module
  // text (the module's own file name left out): a pipeline that leaves a kernel as another left
  // it is not assembled again. Empty: every module is assembled.
  std::string sassCache;
};

// "-O2", "branch-opt", "branch-opt+dce", "-O2@branch-opt.max-thread-depth=3".
bool parsePipeline(const std::string& text, fuzz::Pipeline& out, std::string& error);

// A pipeline's label as part of a file name: letters, digits and '-' stay, the rest become '_';
// a long label is cut and ends in a hash of the whole.
std::string fileLabel(const std::string& label);

struct TargetFigures {
  std::string arch;
  std::string error;  // why there are no figures (ptxas rejected the module for this target, ...)
  SassCensus census;
  int registers = -1;
  uint64_t spillStores = 0, spillLoads = 0;
  bool ok() const { return error.empty(); }
};

struct Measurement {
  std::string file, kernel, pipeline;
  std::string error;  // the cell failed (optimizer, emulator); the figures are then incomplete
  // Emulator.
  emu::Metrics metrics;     // perLine is not kept
  uint64_t warps = 0;       // warps launched
  std::string resultDigest; // buffers, printf output and fault, hashed: equal digests, equal results
  std::string fault;
  // SASS.
  TargetFigures main, second;
  std::optional<double> dynSassEstimate;  // with the main target
  double lineCoverage = 0;  // share of the SASS instructions that carry a PTX line
  double ptxoptSeconds = 0, ptxasSeconds = 0;
  std::string optimizedPath;  // the --loc-self PTX that was measured
};

// The estimated dynamic SASS instructions of one launch: every straight-line SASS block of the
// functions in `functions` weighs as often as it issued, read from the per-line warp counts of
// the PTX lines its instructions map to. A block's count is the line count most of its
// instructions agree on (ties: the larger), within a bound from the SASS control flow (a kernel's
// first block issues once per warp of the launch, `warps`, when given); docs/QUALITY.md says
// why and where it errs.
double estimateDynamicSass(const std::vector<SassFunction>& functions, const std::map<uint32_t, emu::LineMetrics>& perLine,
                           double* lineCoverage = nullptr, uint64_t warps = 0);

// The SASS functions that make up `kernel`: its entry and every non-entry function (the
// callees; nvdisasm does not say which entry calls which).
std::vector<SassFunction> kernelFunctions(const std::vector<SassFunction>& all, const std::string& kernel);

// Measures `ptxText` (read from `file`) under `pipeline`, writing the optimized PTX and the
// cubins under `workDir`.
Measurement measure(const std::string& file, const std::string& ptxText, const emu::LaunchSpec& spec,
                    const fuzz::Pipeline& pipeline, const Tools& tools, const std::string& workDir);

// What ptxas made of a module for one target (ptxas -lineinfo -v, then nvdisasm -c
// --print-line-info): every function nvdisasm shows and what ptxas -v said of each.
struct AssembledModule {
  std::string error;  // ptxas rejected the module, or nvdisasm failed
  std::vector<SassFunction> functions;
  std::map<std::string, PtxasResources> resources;
  bool ok() const { return error.empty(); }
};
// `cachePath`: where the SASS cache keeps what ptxas and nvdisasm say of this module (empty: no
// cache).
AssembledModule assembleModule(const std::string& ptxPath, const std::string& arch, const Tools& tools,
                               const std::string& cubinPath, double* ptxasSeconds, const std::string& cachePath = "");
// The figures of `kernel` in an assembled module: its entry and the non-entry functions
// (kernelFunctions), which go to `functions`.
TargetFigures kernelFigures(const AssembledModule& module, const std::string& kernel, const std::string& arch,
                            std::vector<SassFunction>* functions);

// One kernel of a module whose SASS is measured: the measurement its figures go into (`kernel`
// and `warps` set) and the per-line warp counts of its run, by lines of the module's text.
struct KernelRun {
  Measurement* m;
  const std::map<uint32_t, emu::LineMetrics>* perLine;
};
// The SASS figures of the kernels of one module: `text`, with --loc-self lines, written at
// `ptxPath` (the cubins go beside it). Assembles it once for the main target (census,
// registers, spills and the estimated dynamic SASS of each kernel) and once for the second
// (census), filling main, second, dynSassEstimate, lineCoverage and ptxasSeconds.
void measureSass(const std::string& ptxPath, const std::string& text, const Tools& tools,
                 const std::vector<KernelRun>& kernels);

}  // namespace ptxopt::quality
