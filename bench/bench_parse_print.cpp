// Front-end throughput: parse, print, and both, on PTX files given with --input=FILE.
// Bytes processed are the input's size, so Google Benchmark reports MB/s of PTX text.
// A counting allocator reports the peak heap used while parsing and printing.
//
//   bench_parse_print --input=thrust_sort.ptx --input=x10.ptx [google benchmark flags]
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"

// ---- counting allocator ------------------------------------------------------------------------
// Replacing the global operators with malloc/free is exactly what GCC's mismatch warning flags.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::atomic<size_t> gCurrent{0};
std::atomic<size_t> gPeak{0};

void noteAlloc(void* p) {
  if (!p) return;
  size_t now = gCurrent.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  size_t peak = gPeak.load();
  while (now > peak && !gPeak.compare_exchange_weak(peak, now)) {
  }
}
void noteFree(void* p) {
  if (p) gCurrent.fetch_sub(malloc_usable_size(p));
}
}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  noteAlloc(p);
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept {
  noteFree(p);
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

namespace {

struct Input {
  std::string path;
  std::string text;
};

std::unique_ptr<ptxopt::Module> parseOrDie(const Input& in) {
  ptxopt::DiagEngine diags;
  auto m = ptxopt::parseModule(in.text, in.path, diags);
  if (!m) {
    std::fprintf(stderr, "%s", diags.str().c_str());
    std::exit(1);
  }
  return m;
}

void reportPeak(benchmark::State& state, const Input& in, size_t base) {
  double peak = static_cast<double>(gPeak.load() - base);
  state.counters["peak_heap_MB"] = peak / 1e6;
  state.counters["heap_per_input_byte"] = peak / static_cast<double>(in.text.size());
}

void BM_Parse(benchmark::State& state, const Input* in) {
  size_t base = gCurrent.load();
  gPeak.store(base);
  for (auto _ : state) {
    auto m = parseOrDie(*in);
    benchmark::DoNotOptimize(m.get());
  }
  reportPeak(state, *in, base);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in->text.size()));
}

void BM_Print(benchmark::State& state, const Input* in) {
  auto m = parseOrDie(*in);
  std::string out;
  for (auto _ : state) {
    out.clear();
    ptxopt::printModule(*m, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in->text.size()));
}

void BM_ParsePrint(benchmark::State& state, const Input* in) {
  size_t base = gCurrent.load();
  gPeak.store(base);
  for (auto _ : state) {
    auto m = parseOrDie(*in);
    std::string out = ptxopt::printModule(*m);
    benchmark::DoNotOptimize(out.data());
  }
  reportPeak(state, *in, base);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in->text.size()));
}

}  // namespace

int main(int argc, char** argv) {
  static std::vector<Input> inputs;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--input=", 0) == 0) {
      Input in;
      in.path = a.substr(8);
      std::string err;
      if (!ptxopt::readFile(in.path, in.text, err)) {
        std::fprintf(stderr, "bench_parse_print: %s\n", err.c_str());
        return 1;
      }
      inputs.push_back(std::move(in));
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: bench_parse_print --input=FILE.ptx [--input=...] [benchmark flags]\n");
    return 1;
  }
  inputs.reserve(inputs.size());
  for (const Input& in : inputs) {
    std::string name = in.path.substr(in.path.find_last_of('/') + 1);
    benchmark::RegisterBenchmark(("parse/" + name).c_str(), BM_Parse, &in)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("print/" + name).c_str(), BM_Print, &in)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("parse+print/" + name).c_str(), BM_ParsePrint, &in)->Unit(benchmark::kMillisecond);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
