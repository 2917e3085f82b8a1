#pragma once
// Random PTX kernel generator of the differential fuzzer (ptxfuzz gen).
//
// generateKernel(seed, options) writes one module with one `.entry` (and a few `.func`
// callees) plus the launch specification ptxrun needs. Every kernel it makes is meant to be
// accepted by `ptxas -arch=sm_90`, to run under ptxrun without faults or races, and to compute
// results that do not depend on the warp schedule or on the order of atomics: each thread
// writes its own slots of the zero-initialized `out` buffer, atomics are integer and
// order-independent, barriers sit only where every thread of the CTA reaches them and warp
// collectives name exactly the lanes that execute them. The same seed gives the same bytes on
// every machine (a private xoshiro256** generator; no std distributions, no hashing of
// addresses, no unordered iteration).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ptxopt::fuzz {

// How much code a kernel has: small (about 10-60 instructions), medium (100-600), large
// (1,000-5,000); random picks one per seed (mostly small and medium).
enum class KernelSize { Small, Medium, Large, Random };

std::optional<KernelSize> parseKernelSize(std::string_view text);
const char* kernelSizeName(KernelSize size);

struct GeneratorOptions {
  KernelSize size = KernelSize::Random;
  // Sometimes read the warp size through the predefined identifier `WARP_SZ`.
  bool useWarpSz = true;
  // `.approx`/transcendental float operations (ex2, lg2, sin, cos, rsqrt, div.approx, ...);
  // ptxrun computes them exactly in double, so they compare bit for bit under ptxrun but not
  // against a GPU.
  bool approxMath = true;
  // `.func` callees and calls.
  bool calls = true;
  // Let results of warp collectives executed where the warp may be partial (activemask,
  // votes, redux, match, shuffles with an activemask mask) flow into the output. Which lanes
  // run such a collective together depends on where diverged lanes reconverge, which PTX does
  // not fix: ptxrun reconverges at immediate post-dominators, and an optimizer that changes the
  // CFG may legitimately change the result. Off by default.
  bool convergenceDependentResults = false;
  // Deepest nesting of structured conditionals.
  unsigned maxIfDepth = 6;
  // Four times the barriers and twice the shared-memory exchanges (write, barrier, read,
  // barrier) where barriers are allowed: kernels for dead-barrier elimination. Off: the
  // default draws, so every seed keeps its bytes.
  bool barrierHeavy = false;
  // Three times the conditionals and twice the condition chains, and twice the plain arithmetic
  // (the sides that if-conversion speculates): kernels for predication and select. Off: the
  // default draws.
  bool ifElseHeavy = false;
  // Five times the switches, with more cases, more shapes (16-bit selectors, negative and
  // shifted case values, LLVM-style range checks for runs of values with one target, unsigned
  // splits) and half of them with bodies that only assign constants (the value-table shape):
  // kernels for switch-opt. Off: the default draws.
  bool switchHeavy = false;
  // Conditionals inside conditionals: inside an if, six times the conditionals (three times at
  // the top), longer arms, twice the arithmetic and stores (what a side under a mask computes
  // and guards), half the loops, gotos and irreducible pieces (which keep a region from being
  // flattened): kernels for mask-regions. Off: the default draws.
  bool nestingHeavy = false;
  // Exchanges through asynchronous copies where barriers are allowed: each thread fills its
  // shared row from the integer input with cp.async (.cg 16 bytes, .ca 4 and 8, a src-size
  // constant or register, an ignore-src predicate), commits and waits (wait_group 0, wait_all,
  // or wait_group 1 behind an empty group), then a barrier, a partner's row word, a barrier:
  // kernels for dead-sync and ptxrun's asynchronous copies. Off: the default draws.
  bool asyncCopies = false;
  // Divergent branches whose two sides have the same shape: one side is generated, the other
  // is its copy with its registers and labels renamed and some immediates of plain arithmetic
  // changed (what meld pairs, with selp-chosen operands), one statement in four: kernels for
  // meld. Off: the default draws.
  bool meldHeavy = false;
};

struct GeneratedKernel {
  std::string name;      // kernel (and file stem): fuzz_<seed>
  std::string ptx;       // the module
  std::string specJson;  // the launch specification for ptxrun --launch
  uint64_t seed = 0;
  KernelSize size = KernelSize::Small;  // the size actually drawn (never Random)
  unsigned instructions = 0;            // instructions in the module (all functions)
  // How often each shape was emitted ("if.diamond", "switch.brx", "loop.divergent", ...),
  // ordered by name.
  std::map<std::string, unsigned> shapes;
};

GeneratedKernel generateKernel(uint64_t seed, const GeneratorOptions& options = {});

}  // namespace ptxopt::fuzz
