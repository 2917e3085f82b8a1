// Analyses and the -O1 pipeline on generated functions of 12,500 to 100,000 blocks: the time
// per block should stay flat (linear or near-linear scaling).
//
// The generated kernel repeats three shapes over a fixed pool of 48 registers: a divergent
// if/else on a value derived from %tid.x, a short uniform loop, and an early exit to the end of
// the function on a divergent condition (a long chain of those is the classic quadratic trap
// for sync-dependence analyses).
#include <benchmark/benchmark.h>

#include <string>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Loops.h"
#include "ptxopt/analysis/MemorySpace.h"
#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/ptx/Parser.h"

namespace {

std::string generate(int blocks) {
  std::string s = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry gen(.param .u64 p)\n{\n"
                  ".reg .pred %p<8>;\n.reg .b32 %r<48>;\n.reg .b64 %rd<4>;\n"
                  "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n"
                  "mov.u32 %r2, %ctaid.x;\n";
  int made = 1, label = 0;
  auto L = [&](int k) { return "$L" + std::to_string(k); };
  while (made < blocks) {
    int r = 3 + (label % 40);
    switch (label % 3) {
      case 0: {  // divergent if/else: 3 blocks
        int e = label, j = label + 1;
        s += "and.b32 %r" + std::to_string(r) + ", %r1, " + std::to_string(1 + label % 7) + ";\n";
        s += "setp.eq.u32 %p1, %r" + std::to_string(r) + ", 0;\n@%p1 bra " + L(e) + ";\n";
        s += "add.s32 %r" + std::to_string(r + 1) + ", %r" + std::to_string(r) + ", 3;\nbra.uni " + L(j) + ";\n";
        s += L(e) + ":\nsub.s32 %r" + std::to_string(r + 1) + ", %r" + std::to_string(r) + ", 5;\n";
        s += L(j) + ":\nadd.s32 %r45, %r45, %r" + std::to_string(r + 1) + ";\n";
        label += 2;
        made += 3;
        break;
      }
      case 1: {  // uniform loop: 2 blocks
        int h = label;
        s += "mov.u32 %r46, 0;\n" + L(h) + ":\nadd.s32 %r46, %r46, 1;\nadd.s32 %r45, %r45, %r2;\n";
        s += "setp.lt.u32 %p2, %r46, 4;\n@%p2 bra " + L(h) + ";\n";
        label += 1;
        made += 2;
        break;
      }
      default: {  // divergent early exit: 1 block
        s += "setp.gt.u32 %p3, %r1, " + std::to_string(200 + label % 50) + ";\n@%p3 bra $Lend;\n";
        label += 1;
        made += 1;
        break;
      }
    }
  }
  s += "$Lend:\nst.global.u32 [%rd2], %r45;\nret;\n}\n";
  return s;
}

struct Generated {
  std::unique_ptr<ptxopt::Module> module;
  ptxopt::Function* f = nullptr;
  explicit Generated(int blocks) {
    ptxopt::DiagEngine diags;
    module = ptxopt::parseModule(generate(blocks), "gen.ptx", diags);
    if (!module) {
      std::fprintf(stderr, "%s", diags.str().c_str());
      std::abort();
    }
    for (auto& fn : module->functions())
      if (fn->hasBody) f = fn.get();
  }
};

template <typename A>
void BM_Analysis(benchmark::State& state) {
  Generated g(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ptxopt::FunctionAnalysisManager am(*g.f);
    // Dependencies first, outside the measurement? No: each analysis is timed with what it
    // needs, as a pass would see it from a cold manager.
    benchmark::DoNotOptimize(&am.get<A>());
  }
  state.counters["blocks"] = static_cast<double>(g.f->blocks().size());
  state.counters["ns_per_block"] = benchmark::Counter(static_cast<double>(g.f->blocks().size()),
                                                      benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
}

void BM_PipelineO1(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    Generated g(static_cast<int>(state.range(0)));
    ptxopt::PassManager pm;
    ptxopt::PassManagerOptions o;
    for (auto n : ptxopt::pipelineForLevel(1)) o.pipeline.emplace_back(n);
    std::string err;
    pm.configure(o, err);
    ptxopt::DiagEngine diags;
    state.ResumeTiming();
    benchmark::DoNotOptimize(pm.run(*g.module, diags).ok);
  }
}

}  // namespace

#define ANALYSIS_BENCH(A) BENCHMARK_TEMPLATE(BM_Analysis, A)->RangeMultiplier(2)->Range(12500, 100000)->Unit(benchmark::kMillisecond)
ANALYSIS_BENCH(ptxopt::CfgAnalysis);
ANALYSIS_BENCH(ptxopt::DominatorAnalysis);
ANALYSIS_BENCH(ptxopt::PostDominatorAnalysis);
ANALYSIS_BENCH(ptxopt::DominanceFrontierAnalysis);
ANALYSIS_BENCH(ptxopt::LoopAnalysis);
ANALYSIS_BENCH(ptxopt::LivenessAnalysis);
ANALYSIS_BENCH(ptxopt::ReachingDefsAnalysis);
ANALYSIS_BENCH(ptxopt::MemorySpaceAnalysis);
ANALYSIS_BENCH(ptxopt::UniformityAnalysis);
BENCHMARK(BM_PipelineO1)->RangeMultiplier(2)->Range(12500, 100000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
