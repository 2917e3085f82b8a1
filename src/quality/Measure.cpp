#include "ptxopt/quality/Measure.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include <unistd.h>

#include "ptxopt/passes/PassManager.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Hash.h"
#include "ptxopt/support/Process.h"

namespace ptxopt::quality {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string baseName(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::string firstLines(const std::string& text, size_t n) {
  size_t at = 0;
  for (size_t k = 0; k < n && at != std::string::npos; ++k) at = text.find('\n', at + 1);
  return at == std::string::npos ? text : text.substr(0, at);
}

std::string digest(const emu::RunResult& r) {
  uint64_t h = kFnvOffset;
  auto mix = [&](std::string_view s) { h = (fnv1a(s, h) ^ 0xff) * 0x100000001b3ull; };
  for (const emu::BufferResult& b : r.buffers) {
    mix(b.name);
    mix(std::string_view(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size()));
  }
  mix(r.stdoutText);
  mix(r.fault);
  return hex16(h);
}

unsigned smNumber(const std::string& arch) {
  size_t at = arch.find("sm_");
  return at == std::string::npos ? 0 : static_cast<unsigned>(std::strtoul(arch.c_str() + at + 3, nullptr, 10));
}

// The module text for a lower target: its ".target sm_NN" line names `arch` instead.
std::string retarget(const std::string& ptx, const std::string& arch) {
  size_t at = ptx.find("\n.target ");
  if (at == std::string::npos) return ptx;
  size_t sm = ptx.find("sm_", at);
  size_t end = sm == std::string::npos ? sm : ptx.find_first_not_of("0123456789af", sm + 3);
  if (sm == std::string::npos || smNumber(ptx.substr(sm, end - sm)) <= smNumber(arch)) return ptx;
  return ptx.substr(0, sm) + arch + ptx.substr(end);
}

}  // namespace

// Long labels (a pipeline with many knob settings) are cut and end in a hash of the whole, so
// that the names made from them (".sm_90.cubin", ".ptx.cfg.svg" added) stay under the 255-byte
// limit of a file name and two labels that share the start still differ.
std::string fileLabel(const std::string& label) {
  constexpr size_t kMax = 96;
  std::string safe;
  for (char c : label) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  if (safe.size() <= kMax) return safe;
  return safe.substr(0, kMax - 17) + "_" + hex16(fnv1a(label));
}

bool parsePipeline(const std::string& text, fuzz::Pipeline& out, std::string& error) {
  out = fuzz::Pipeline{};
  out.label = text;
  std::string passes = text.substr(0, text.find('@'));
  if (passes.size() == 3 && passes[0] == '-' && passes[1] == 'O' && passes[2] >= '0' && passes[2] <= '3') {
    out.passes = fuzz::levelPipeline(static_cast<unsigned>(passes[2] - '0')).passes;
  } else {
    size_t start = 0;
    while (start <= passes.size()) {
      size_t plus = passes.find('+', start);
      std::string name = passes.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      if (!findPass(name)) {
        error = "unknown pass '" + name + "' in pipeline '" + text + "' (see ptxopt --list-passes)";
        return false;
      }
      out.passes.push_back(name);
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  }
  for (size_t at = text.find('@'); at != std::string::npos;) {
    size_t next = text.find('@', at + 1);
    std::string kv = text.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next;
    if (kv == "profile") {
      out.profileUse = true;
      continue;
    }
    size_t eq = kv.find('=');
    if (eq == std::string::npos || kv.find('.') > eq) {
      error = "a pipeline takes @PASS.KNOB=VALUE or @profile, found '@" + kv + "' in '" + text + "'";
      return false;
    }
    out.knobs[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return true;
}

std::vector<SassFunction> kernelFunctions(const std::vector<SassFunction>& all, const std::string& kernel) {
  std::vector<SassFunction> out;
  for (const SassFunction& f : all)
    if (!f.isEntry || f.name == kernel) out.push_back(f);
  return out;
}

double estimateDynamicSass(const std::vector<SassFunction>& functions, const std::map<uint32_t, emu::LineMetrics>& perLine,
                           double* lineCoverage, uint64_t warps) {
  double total = 0;
  uint64_t counted = 0, withLine = 0;
  auto countOf = [&](uint32_t line) -> std::optional<uint64_t> {
    auto it = perLine.find(line);
    if (it == perLine.end()) return line ? std::optional<uint64_t>(0) : std::nullopt;
    return it->second.warpInstructions;
  };
  auto is = [](const SassInstruction& i, std::initializer_list<const char*> bases) {
    for (const char* b : bases)
      if (i.base == b) return true;
    return false;
  };
  for (const SassFunction& f : functions) {
    const std::vector<SassBlock> blocks = sassBlocks(f);
    std::vector<uint64_t> bound(blocks.size(), 0), size(blocks.size(), 0);
    // The SASS control flow: a BRA's target and the fall-through (after anything but an
    // unguarded BRA, EXIT, RET, JMP, BRX, JMX or KILL). Indirect branches (BRX, JMX, JMP) reach
    // labels the text does not tie to them.
    std::unordered_map<std::string, size_t> blockAt;
    for (size_t j = 0; j < blocks.size(); ++j)
      if (!f.instructions[blocks[j].first].label.empty()) blockAt[f.instructions[blocks[j].first].label] = j;
    std::vector<std::vector<size_t>> preds(blocks.size());
    bool indirect = false;
    for (size_t j = 0; j < blocks.size(); ++j) {
      const SassInstruction& t = f.instructions[blocks[j].last];
      indirect |= is(t, {"BRX", "JMX", "JMP"});
      if (t.base == "BRA" && !t.target.empty()) {
        auto it = blockAt.find(t.target);
        if (it != blockAt.end()) preds[it->second].push_back(j);
        else indirect = true;  // a target we cannot place: trust no label's predecessors
      }
      bool falls = t.guarded() || !is(t, {"BRA", "EXIT", "RET", "JMP", "BRX", "JMX", "KILL"});
      if (falls && j + 1 < blocks.size()) preds[j + 1].push_back(j);
    }
    // Copies of a line in loops that ptxas unrolled partly: the loop's body holds k copies of
    // each line and a remainder loop after it one more, each copy issuing a share of the line's
    // count. A line's copies are its instructions in the function over its fewest in one loop
    // (the blocks from a loop header to the block that jumps back to it); each of its
    // instructions votes for the line's count divided among them. A line in no loop, or in one
    // loop only, has one copy (docs/QUALITY.md, "Unrolling by ptxas").
    std::unordered_map<uint32_t, uint64_t> inFunction, fewestInLoop;
    for (size_t k = 0; k < f.instructions.size(); ++k)
      if (!isPadding(f, k) && f.instructions[k].ptxLine) ++inFunction[f.instructions[k].ptxLine];
    for (size_t j = 0; j < blocks.size(); ++j)
      for (size_t p : preds[j]) {
        if (p < j) continue;
        std::unordered_map<uint32_t, uint64_t> inLoop;
        for (size_t k = blocks[j].first; k <= blocks[p].last; ++k)
          if (!isPadding(f, k) && f.instructions[k].ptxLine) ++inLoop[f.instructions[k].ptxLine];
        for (const auto& [line, n] : inLoop) {
          auto [it, fresh] = fewestInLoop.emplace(line, n);
          if (!fresh) it->second = std::min(it->second, n);
        }
      }
    auto copiesOf = [&](uint32_t line) -> uint64_t {
      auto it = fewestInLoop.find(line);
      return it == fewestInLoop.end() ? 1 : std::max<uint64_t>(1, inFunction[line] / it->second);
    };
    for (size_t j = 0; j < blocks.size(); ++j) {
      const SassBlock& b = blocks[j];
      // Votes: how many of the block's instructions say the block ran c times. Unguarded
      // instructions vote first; guarded ones only in a block without those; last, the
      // instructions ptxas places where it likes (convergence barriers BSSY and BSYNC,
      // constant-bank loads LDC and ULDC) when their line never ran: ptxas hoists them into loop
      // headers from inner loops that may never run, and there they issue as often as the header.
      std::unordered_map<uint64_t, uint64_t> votes, guardedVotes, placedVotes;
      for (size_t k = b.first; k <= b.last; ++k) {
        if (isPadding(f, k)) continue;
        ++size[j];
        const SassInstruction& i = f.instructions[k];
        std::optional<uint64_t> c = countOf(i.ptxLine);
        if (!c) continue;
        ++withLine;
        bool placed = *c == 0 && is(i, {"BSSY", "BSYNC", "LDC", "ULDC"});
        ++(placed ? placedVotes : i.guarded() ? guardedVotes : votes)[*c / copiesOf(i.ptxLine)];
      }
      counted += size[j];
      if (votes.empty()) votes = guardedVotes.empty() ? placedVotes : guardedVotes;
      uint64_t best = 0, bestVotes = 0;
      for (const auto& [c, n] : votes)
        if (n > bestVotes || (n == bestVotes && c > best)) {
          best = c;
          bestVotes = n;
        }
      // A bound from the control flow: a block entered only from blocks above it (no loop comes
      // back to it) issues at most as often as they may issue together; a kernel's first block
      // once per warp launched; a callee's first block, a loop's header and a block an indirect
      // branch may reach have their vote as bound. The
      // count is the vote within the bound: this corrects a loop ptxas unrolled completely,
      // whose copies all vote for the loop's count (docs/QUALITY.md). Only bounds flow on (a
      // block's vote can be too low, as a BSYNC's after the side it closes).
      bool forward = j > 0 && !preds[j].empty() && !(indirect && !f.instructions[b.first].label.empty());
      uint64_t inflow = 0;
      for (size_t p : preds[j]) {
        forward = forward && p < j;
        if (forward) inflow = bound[p] > UINT64_MAX - inflow ? UINT64_MAX : inflow + bound[p];  // joins add up
      }
      bound[j] = forward ? inflow : (j == 0 && f.isEntry && warps) ? warps : best;
      const uint64_t count = std::min(best, bound[j]);
      total += static_cast<double>(count) * static_cast<double>(size[j]);
    }
  }
  if (lineCoverage) *lineCoverage = counted ? static_cast<double>(withLine) / static_cast<double>(counted) : 0;
  return total;
}

namespace {

// What ptxas -v and nvdisasm said about one module, as the SASS cache keeps it.
struct AssemblerOutput {
  double ptxasSeconds = 0;
  std::string ptxasVerbose, sass;
};

// The cache's file for `text` assembled for `arch`: the text with its own file name `textName`
// (the one its .file directive names, which only the line tables of the cubin carry) left out.
// Empty without a cache.
std::string sassCachePath(const std::string& textName, const std::string& text, const std::string& arch, const Tools& tools) {
  if (tools.sassCache.empty()) return {};
  std::string quoted = "\"" + textName + "\"", key = arch + "\n";
  for (size_t at = 0;;) {
    size_t next = text.find(quoted, at);
    key.append(text, at, next == std::string::npos ? std::string::npos : next - at);
    if (next == std::string::npos) break;
    at = next + quoted.size();
  }
  return tools.sassCache + "/" + hex16(fnv1a(key)) + "-" + std::to_string(key.size()) + ".sass";
}

// The cache file: the seconds ptxas took, the length of its -v output, that output, then nvdisasm's.
bool readSassCache(const std::string& path, AssemblerOutput& out) {
  std::string text, error;
  if (!readFile(path, text, error)) return false;
  char* end = nullptr;
  out.ptxasSeconds = std::strtod(text.c_str(), &end);
  size_t length = std::strtoull(end, &end, 10);
  size_t at = static_cast<size_t>(end - text.c_str());
  if (at >= text.size() || text[at] != '\n' || text.size() - at - 1 < length) return false;
  out.ptxasVerbose = text.substr(at + 1, length);
  out.sass = text.substr(at + 1 + length);
  return true;
}

// Written under a temporary name and renamed: a cell reading the cache meanwhile sees the whole
// file or none.
void writeSassCache(const std::string& path, const AssemblerOutput& out) {
  std::string error, tmp = path + "." + std::to_string(getpid());
  std::string text = std::to_string(out.ptxasSeconds) + " " + std::to_string(out.ptxasVerbose.size()) + "\n" +
                     out.ptxasVerbose + out.sass;
  if (writeFile(tmp, text, error) && std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

AssembledModule assembleModule(const std::string& ptxPath, const std::string& arch, const Tools& tools,
                               const std::string& cubinPath, double* ptxasSeconds, const std::string& cachePath) {
  AssembledModule a;
  AssemblerOutput said;
  if (!cachePath.empty() && readSassCache(cachePath, said)) {
    if (ptxasSeconds) *ptxasSeconds = said.ptxasSeconds;
    a.resources = parsePtxasVerbose(said.ptxasVerbose);
    a.functions = parseNvdisasm(said.sass);
    return a;
  }
  auto start = std::chrono::steady_clock::now();
  ProcessResult as = runProcess({tools.ptxas, "-arch=" + arch, "-lineinfo", "-v", ptxPath, "-o", cubinPath}, tools.timeoutSeconds);
  said.ptxasSeconds = secondsSince(start);
  if (ptxasSeconds) *ptxasSeconds = said.ptxasSeconds;
  if (!as.ok()) {
    std::string why = as.err.empty() ? as.out : as.err;
    a.error = "ptxas -arch=" + arch + ": " + (why.empty() ? as.describe() : firstLines(why, 3));
    return a;
  }
  said.ptxasVerbose = as.out + as.err;
  a.resources = parsePtxasVerbose(said.ptxasVerbose);
  ProcessResult dis = runProcess({tools.nvdisasm, "-c", "--print-line-info", cubinPath}, tools.timeoutSeconds);
  if (!dis.ok()) {
    a.error = "nvdisasm: " + (dis.err.empty() ? dis.describe() : firstLines(dis.err, 3));
    return a;
  }
  a.functions = parseNvdisasm(dis.out);
  said.sass = std::move(dis.out);
  if (!cachePath.empty()) writeSassCache(cachePath, said);
  return a;
}

TargetFigures kernelFigures(const AssembledModule& a, const std::string& kernel, const std::string& arch,
                            std::vector<SassFunction>* functions) {
  TargetFigures t;
  t.arch = arch;
  if (!a.ok()) {
    t.error = a.error;
    return t;
  }
  std::vector<SassFunction> mine = kernelFunctions(a.functions, kernel);
  bool sawKernel = false;
  for (const SassFunction& f : mine) {
    sawKernel |= f.name == kernel;
    t.census.add(census(f));
    auto r = a.resources.find(f.name);
    if (r == a.resources.end()) continue;
    if (f.name == kernel) t.registers = r->second.registers;
    t.spillStores += r->second.spillStores;
    t.spillLoads += r->second.spillLoads;
  }
  if (!sawKernel) t.error = "nvdisasm shows no entry '" + kernel + "'";
  if (functions) *functions = std::move(mine);
  return t;
}

void measureSass(const std::string& ptxPath, const std::string& text, const Tools& tools,
                 const std::vector<KernelRun>& kernels) {
  if (tools.ptxas.empty() || tools.nvdisasm.empty()) {
    for (const KernelRun& k : kernels) {
      k.m->main.error = tools.ptxas.empty() ? "no ptxas" : "no nvdisasm";
      k.m->second.error = k.m->main.error;
    }
    return;
  }
  std::string base = ptxPath.substr(0, ptxPath.size() - (ptxPath.ends_with(".ptx") ? 4 : 0)), error;
  double seconds = 0;
  AssembledModule main = assembleModule(ptxPath, tools.arch, tools, base + "." + tools.arch + ".cubin", &seconds,
                                        sassCachePath(baseName(ptxPath), text, tools.arch, tools));
  for (const KernelRun& k : kernels) {
    std::vector<SassFunction> functions;
    k.m->main = kernelFigures(main, k.m->kernel, tools.arch, &functions);
    k.m->ptxasSeconds = seconds;
    if (k.m->main.ok())
      k.m->dynSassEstimate = estimateDynamicSass(functions, *k.perLine, &k.m->lineCoverage, k.m->warps);
  }
  if (tools.secondArch.empty()) return;
  std::string path = base + "." + tools.secondArch + ".ptx", secondText = retarget(text, tools.secondArch);
  AssembledModule second;
  if (!writeFile(path, secondText, error))
    second.error = error;
  else  // (the copy's .file directive names the main file)
    second = assembleModule(path, tools.secondArch, tools, base + "." + tools.secondArch + ".cubin", nullptr,
                            sassCachePath(baseName(ptxPath), secondText, tools.secondArch, tools));
  for (const KernelRun& k : kernels) k.m->second = kernelFigures(second, k.m->kernel, tools.secondArch, nullptr);
}

Measurement measure(const std::string& file, const std::string& ptxText, const emu::LaunchSpec& spec,
                    const fuzz::Pipeline& pipeline, const Tools& tools, const std::string& workDir) {
  Measurement m;
  m.file = file;
  m.pipeline = pipeline.label;
  std::string error;
  if (!makeDirectory(workDir, error)) {
    m.error = error;
    return m;
  }
  // Optimize and print with --loc-self lines.
  auto start = std::chrono::steady_clock::now();
  DiagEngine diags;
  std::unique_ptr<Module> module = loadModule(ptxText, file, diags);
  if (!module) {
    m.error = "the input does not load: " + firstLines(diags.str(), 3);
    return m;
  }
  PassManager pm;
  if (!pm.configure(pipeline.managerOptions(), error)) {
    m.error = "the pipeline does not configure: " + error;
    return m;
  }
  BranchProfile profile;
  if (pipeline.profileUse) {
    // The branch profile of this launch on the input, as ptxrun --profile-out writes it.
    std::unique_ptr<emu::Emulator> input = emu::Emulator::create(*module, error);
    if (!input) {
      m.error = "the emulator cannot load the input: " + error;
      return m;
    }
    emu::RunOptions ro;
    ro.jobs = 1;
    ro.branchProfile = true;
    emu::RunResult run = input->run(spec, ro);
    if (!run.error.empty()) {
      m.error = "the launch does not fit the input: " + run.error;
      return m;
    }
    profile = profileFromOutcomes(*module, run.metrics.branchOutcomes);
    pm.setProfile(&profile);
  }
  if (!pm.run(*module, diags).ok) {
    m.error = "the pipeline failed: " + firstLines(diags.str(), 3);
    return m;
  }
  std::string stem = baseName(file);
  stem = stem.substr(0, stem.rfind(".ptx"));
  m.optimizedPath = workDir + "/" + stem + "." + fileLabel(pipeline.label) + ".ptx";
  PrintOptions po;
  po.locSelf = baseName(m.optimizedPath);
  std::string optimized = printModule(*module, po);
  m.ptxoptSeconds = secondsSince(start);
  if (!writeFile(m.optimizedPath, optimized, error)) {
    m.error = error;
    return m;
  }

  // Run the printed text, so that the emulator's lines are the lines ptxas saw.
  DiagEngine back;
  std::unique_ptr<Module> printed = loadModule(optimized, m.optimizedPath, back);
  if (!printed) {
    m.error = "the optimized output does not read back: " + firstLines(back.str(), 3);
    return m;
  }
  std::unique_ptr<emu::Emulator> emulator = emu::Emulator::create(*printed, error);
  if (!emulator) {
    m.error = "the emulator cannot load the output: " + error;
    return m;
  }
  emu::RunOptions ro;
  ro.jobs = 1;
  ro.perLineMetrics = true;
  emu::RunResult run = emulator->run(spec, ro);
  if (!run.error.empty()) {
    m.error = "the launch does not fit: " + run.error;
    return m;
  }
  m.kernel = spec.kernel;
  if (m.kernel.empty())
    for (const auto& f : printed->functions())
      if (f->isEntry && f->hasBody) m.kernel = std::string(f->name());
  m.fault = run.fault;
  m.resultDigest = digest(run);
  m.metrics = run.metrics;
  m.metrics.perLine.clear();
  uint64_t threads = uint64_t{spec.block[0]} * spec.block[1] * spec.block[2];
  m.warps = uint64_t{spec.grid[0]} * spec.grid[1] * spec.grid[2] * ((threads + 31) / 32);

  measureSass(m.optimizedPath, optimized, tools, {{&m, &run.metrics.perLine}});
  return m;
}

}  // namespace ptxopt::quality
