// Fuzz target for the optimizer: whatever parses must survive the -O2 pipeline with the IR
// verified after every pass, and its output must parse again and print idempotently.
#include <cstddef>
#include <cstdint>

#include "FuzzCommon.h"
#include "ptxopt/passes/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptxopt;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = fuzz::parseVerified(text);
  if (!m) return 0;
  PassManager pm;
  PassManagerOptions options;
  for (auto name : pipelineForLevel(2)) options.pipeline.emplace_back(name);
  options.verifyEach = true;
  std::string error;
  if (!pm.configure(options, error)) fuzz::fail("optimize_fuzzer", "configure", error, "");
  DiagEngine pdiags;
  if (!pm.run(*m, pdiags).ok) fuzz::fail("optimize_fuzzer", "a pass broke the IR", std::string(text), pdiags.str());
  fuzz::printReparsePrint("optimize_fuzzer", *m, "fuzz-optimized.ptx");
  return 0;
}
