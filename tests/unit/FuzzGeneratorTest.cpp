// The kernel generator of ptxfuzz: determinism, and kernels that parse, verify and run under
// the emulator without faults or races (scripts/gen_check.py does the same over thousands of
// seeds, with ptxas and a random schedule too).
#include <gtest/gtest.h>

#include <set>

#include "ptxopt/emu/Emulator.h"
#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/fuzz/Generator.h"
#include "ptxopt/fuzz/Harness.h"
#include "ptxopt/passes/Pass.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Parser.h"

namespace ptxopt::fuzz {
namespace {

// Odd seeds with the defaults (WARP_SZ in some kernels), even seeds without WARP_SZ.
GeneratorOptions optionsFor(uint64_t seed) {
  GeneratorOptions o;
  o.useWarpSz = seed % 2;
  return o;
}

TEST(FuzzGenerator, SameSeedSameBytes) {
  for (uint64_t seed : {1ull, 42ull, 123456789ull}) {
    GeneratedKernel a = generateKernel(seed), b = generateKernel(seed);
    EXPECT_EQ(a.ptx, b.ptx);
    EXPECT_EQ(a.specJson, b.specJson);
    EXPECT_EQ(a.shapes, b.shapes);
    EXPECT_EQ(a.name, "fuzz_" + std::to_string(seed));
  }
}

TEST(FuzzGenerator, SeedsDiffer) {
  std::set<std::string> texts;
  for (uint64_t seed = 1; seed <= 20; ++seed) texts.insert(generateKernel(seed).ptx);
  EXPECT_EQ(texts.size(), 20u);
}

TEST(FuzzGenerator, SizesOrdered) {
  GeneratorOptions small, large;
  small.size = KernelSize::Small;
  large.size = KernelSize::Large;
  unsigned s = 0, l = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    GeneratedKernel a = generateKernel(seed, small), b = generateKernel(seed, large);
    EXPECT_EQ(a.size, KernelSize::Small);
    EXPECT_EQ(b.size, KernelSize::Large);
    s += a.instructions;
    l += b.instructions;
  }
  EXPECT_LT(5 * s, l);
}

TEST(FuzzGenerator, SizeNames) {
  for (KernelSize k : {KernelSize::Small, KernelSize::Medium, KernelSize::Large, KernelSize::Random})
    EXPECT_EQ(parseKernelSize(kernelSizeName(k)), k);
  EXPECT_FALSE(parseKernelSize("huge"));
}

// The kernel parses, verifies, has a launch spec, uses only instructions the emulator models,
// and runs without a fault or a race.
void expectRunsCleanly(const GeneratedKernel& k) {
  SCOPED_TRACE(k.name);
  DiagEngine diags;
  auto m = parseModule(k.ptx, k.name + ".ptx", diags);
  ASSERT_TRUE(m) << diags.str();
  ASSERT_TRUE(verifyModule(*m, diags)) << diags.str();
  emu::LaunchSpec spec;
  std::string error;
  ASSERT_TRUE(emu::parseLaunchSpec(k.specJson, k.name + ".json", spec, error)) << error;
  auto e = emu::Emulator::create(*m, error);
  ASSERT_TRUE(e) << error;
  EXPECT_TRUE(e->unsupportedInstructions().empty());
  emu::RunOptions options;
  options.checkRaces = true;
  emu::RunResult r = e->run(spec, options);
  EXPECT_TRUE(r.ok) << r.error << r.fault;
  EXPECT_TRUE(r.races.empty()) << (r.races.empty() ? "" : r.races.front().description);
}

TEST(FuzzGenerator, KernelsParseVerifyAndRunCleanly) {
  for (uint64_t seed = 1; seed <= 40; ++seed) expectRunsCleanly(generateKernel(seed, optionsFor(seed)));
}

// --nesting-heavy (mask-regions' kernels): more conditionals nested in conditionals than the
// default draws, and kernels as valid as ever.
TEST(FuzzGenerator, NestingHeavyNestsMore) {
  GeneratorOptions heavy;
  heavy.nestingHeavy = true;
  unsigned plain = 0, nested = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    GeneratedKernel a = generateKernel(seed), b = generateKernel(seed, heavy);
    auto count = [](const GeneratedKernel& k) {
      auto it = k.shapes.find("if.diamond.nested");
      return it == k.shapes.end() ? 0u : it->second;
    };
    plain += count(a);
    nested += count(b);
    if (seed <= 6) expectRunsCleanly(b);
  }
  EXPECT_GT(nested, plain + plain / 2) << "nested diamonds: " << nested << " with --nesting-heavy, " << plain << " without";
}

}  // namespace
}  // namespace ptxopt::fuzz

// Random fuzzing pipelines never turn on a knob that miscompiles on purpose: the long campaign
// once reported a race that only dead-sync.ignore-call-safety=true made (seed 7945).
TEST(FuzzPipelines, RandomKnobsLeaveUnsoundKnobsAlone) {
  unsigned withDeadSync = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    ptxopt::fuzz::Pipeline p = ptxopt::fuzz::randomPipeline(seed, true);
    for (const std::string& name : p.passes) withDeadSync += name == "dead-sync";
    for (const auto& [knob, value] : p.knobs) {
      std::string pass = knob.substr(0, knob.find('.')), name = knob.substr(knob.find('.') + 1);
      const std::vector<ptxopt::KnobSpec>* knobs = ptxopt::findKnobs(pass);  // a pass's, or the ptxas model's
      ASSERT_NE(knobs, nullptr) << knob;
      for (const ptxopt::KnobSpec& k : *knobs) {
        if (k.name == name) {
          EXPECT_FALSE(k.unsound) << "seed " << seed << " sets " << knob << "=" << value;
        }
      }
    }
  }
  EXPECT_GT(withDeadSync, 100u);  // the pass with the unsound knob was drawn often enough
}

// A pipeline that optimizes with the launch's profile says so in its arguments (the reproducer's
// pipeline.txt), reads back with it, and random pipelines draw it for about half the seeds
// without changing their passes and knobs (drawn last).
TEST(FuzzPipelines, ProfileUseRoundTripsAndIsDrawn) {
  unsigned withProfile = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    ptxopt::fuzz::Pipeline p = ptxopt::fuzz::randomPipeline(seed, true);
    withProfile += p.profileUse;
    ptxopt::fuzz::Pipeline back;
    std::string error;
    ASSERT_TRUE(ptxopt::fuzz::Pipeline::parse(p.arguments(), back, error)) << error;
    EXPECT_EQ(back.passes, p.passes);
    EXPECT_EQ(back.knobs, p.knobs);
    EXPECT_EQ(back.profileUse, p.profileUse) << p.arguments();
  }
  EXPECT_GT(withProfile, 120u);
  EXPECT_LT(withProfile, 280u);
  ptxopt::fuzz::Pipeline p;
  std::string error;
  ASSERT_TRUE(ptxopt::fuzz::Pipeline::parse("--passes=select --profile-use=profile.json", p, error)) << error;
  EXPECT_TRUE(p.profileUse);
  EXPECT_NE(p.arguments().find("--profile-use=profile.json"), std::string::npos);
}

// Choice knobs: only their words parse, and random pipelines draw every word (switch-opt's
// lowerings reach the fuzzer that way).
TEST(FuzzPipelines, ChoiceKnobsParseTheirWordsAndAreAllDrawn) {
  const ptxopt::PassInfo* info = ptxopt::findPass("switch-opt");
  ASSERT_NE(info, nullptr);
  const ptxopt::KnobSpec* lowering = nullptr;
  for (const ptxopt::KnobSpec& k : info->knobs)
    if (k.name == "lowering") lowering = &k;
  ASSERT_NE(lowering, nullptr);
  std::string error;
  EXPECT_TRUE(ptxopt::parseKnobValue(*lowering, "predicate", error));
  EXPECT_FALSE(ptxopt::parseKnobValue(*lowering, "pred", error));
  EXPECT_EQ(error, "expected one of auto table bst cascade predicate, found 'pred'");
  EXPECT_FALSE(ptxopt::parseKnobValue(*lowering, "", error));
  std::set<std::string> drawn;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    ptxopt::fuzz::Pipeline p = ptxopt::fuzz::randomPipeline(seed, true);
    auto it = p.knobs.find("switch-opt.lowering");
    if (it != p.knobs.end()) drawn.insert(it->second);
  }
  EXPECT_EQ(drawn, (std::set<std::string>{"auto", "table", "bst", "cascade", "predicate"}));
}
