// Fuzz target that feeds generator seeds through the optimizer: the input bytes choose a
// generator seed and options and a random pipeline (with random knobs); the generated kernel
// must be a good input (verifies, runs without a fault or a race) and the optimized kernel must
// give the same results (the differential harness, without ptxas). Coverage of the generator,
// the passes and the emulator steers libFuzzer towards seeds that reach new code.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "FuzzCommon.h"
#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/fuzz/Generator.h"
#include "ptxopt/fuzz/Harness.h"

namespace {

uint64_t take64(const uint8_t*& data, size_t& size) {
  uint64_t v = 0;
  size_t n = size < 8 ? size : 8;
  std::memcpy(&v, data, n);
  data += n;
  size -= n;
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptxopt;
  const uint64_t seed = take64(data, size);
  const uint8_t flags = size ? data[0] : 0;
  if (size) ++data, --size;
  const uint64_t pipelineSeed = take64(data, size);

  fuzz::GeneratorOptions g;
  // Small and medium only: a large kernel under the sanitizers takes seconds.
  g.size = (flags & 1) ? fuzz::KernelSize::Medium : fuzz::KernelSize::Small;
  g.useWarpSz = flags & 2;
  g.approxMath = flags & 4;
  g.calls = flags & 8;
  fuzz::GeneratedKernel k = fuzz::generateKernel(seed, g);

  emu::LaunchSpec spec;
  std::string error;
  if (!emu::parseLaunchSpec(k.specJson, k.name + ".json", spec, error))
    fuzz::fail("generate_fuzzer", "the generated launch spec does not read back", k.specJson, error);
  fuzz::HarnessOptions h;
  h.maxInstructions = uint64_t{1} << 20;
  fuzz::KernelUnderTest kernel(k.name, k.ptx, spec, h);
  fuzz::Outcome original = kernel.checkOriginal();
  if (original.verdict != fuzz::Verdict::Ok)
    fuzz::fail("generate_fuzzer", "the generator made a bad kernel", k.ptx, original.detail);
  fuzz::Pipeline pipeline = (flags & 16) ? fuzz::levelPipeline(1 + (flags >> 5) % 3)
                                         : fuzz::randomPipeline(pipelineSeed, flags & 32);
  fuzz::Outcome optimized = kernel.checkPipeline(pipeline);
  if (optimized.verdict != fuzz::Verdict::Ok)
    fuzz::fail("generate_fuzzer", fuzz::verdictName(optimized.verdict), k.ptx,
               pipeline.arguments() + "\n" + optimized.detail);
  return 0;
}
