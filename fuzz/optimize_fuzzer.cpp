// Fuzz target for the optimizer: whatever parses must survive the -O2 pipeline with the IR
// verified after every pass, and its output must parse again and print idempotently.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ptxopt/ir/Verifier.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "optimize_fuzzer: %s\n--- first\n%s\n--- second\n%s\n", what, a.c_str(), b.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ptxopt::DiagEngine diags;
  auto m = ptxopt::parseModule(text, "fuzz.ptx", diags);
  if (!m) return 0;
  ptxopt::DiagEngine vdiags;
  if (!ptxopt::verifyModule(*m, vdiags)) return 0;  // ill-typed input: not the optimizer's business
  ptxopt::PassManager pm;
  ptxopt::PassManagerOptions options;
  for (auto name : ptxopt::pipelineForLevel(2)) options.pipeline.emplace_back(name);
  options.verifyEach = true;
  std::string error;
  if (!pm.configure(options, error)) fail("configure", error, "");
  ptxopt::DiagEngine pdiags;
  if (!pm.run(*m, pdiags).ok) fail("a pass broke the IR", std::string(text), pdiags.str());
  std::string once = ptxopt::printModule(*m);
  ptxopt::DiagEngine diags2;
  auto m2 = ptxopt::parseModule(once, "fuzz-optimized.ptx", diags2);
  if (!m2) fail("optimized module does not parse", once, diags2.str());
  if (ptxopt::printModule(*m2) != once) fail("optimized module does not print idempotently", once, "");
  return 0;
}
