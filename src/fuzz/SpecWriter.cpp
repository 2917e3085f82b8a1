// The launch specification of a generated kernel (docs/EMULATOR.md, "Launch specifications"),
// written as text so that its bytes depend only on the seed.
#include <cstring>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

namespace {

// Shortest text that reads back as the same float (the values are multiples of 1/8).
std::string floatText(float f) { return fmt::format("{}", f); }

}  // namespace

std::string Gen::specText() const {
  unsigned total = threads() * grid;
  std::string s = "{\n";
  s += fmt::format("  \"kernel\": \"fuzz_{}\",\n", seed);
  s += fmt::format("  \"comment\": \"ptxfuzz gen --seed {} --size {}\",\n", seed, kernelSizeName(size));
  s += fmt::format("  \"grid\": [{}, 1, 1],\n", grid);
  s += fmt::format("  \"block\": [{}, {}, 1],\n", blockX, blockY);
  s += fmt::format("  \"dynamic_shared_bytes\": {},\n", usesDynShared ? 4 * dynRowWords * threads() : 0);
  s += "  \"params\": [\n";
  s += fmt::format(
      "    {{\"name\": \"inI\", \"buffer\": {{\"type\": \"s32\", \"count\": {}, \"init\": {{\"random\": {{\"seed\": {}, "
      "\"min\": {}, \"max\": {}}}}}}}}},\n",
      inCount, inISeed, inIMin, inIMax);
  s += fmt::format(
      "    {{\"name\": \"inF\", \"buffer\": {{\"type\": \"f32\", \"count\": {}, \"init\": {{\"random\": {{\"seed\": {}, "
      "\"min\": -8.0, \"max\": 8.0}}}}}}}},\n",
      inFCount, inFSeed);
  s += fmt::format(
      "    {{\"name\": \"inD\", \"buffer\": {{\"type\": \"f64\", \"count\": {}, \"init\": {{\"random\": {{\"seed\": {}, "
      "\"min\": -8.0, \"max\": 8.0}}}}}}}},\n",
      inFCount, inDSeed);
  s += fmt::format("    {{\"name\": \"out\", \"buffer\": {{\"type\": \"u64\", \"count\": {}, \"init\": \"zero\"}}}},\n",
                   total * kSlots);
  // Initial accumulator values: the identity of each group's operation (see Memory.cpp).
  static const char* const kAccInit[8] = {"0", "4294967295", "0", "0", "4294967295", "0", "2147483647", "2147483648"};
  std::string acc;
  for (unsigned i = 0; i < kAccWords; ++i) acc += fmt::format("{}{}", i ? ", " : "", kAccInit[i / 8]);
  s += fmt::format("    {{\"name\": \"acc\", \"buffer\": {{\"type\": \"u32\", \"count\": {}, \"init\": {{\"values\": [{}]}}}}}},\n",
                   kAccWords, acc);
  s += fmt::format("    {{\"name\": \"acc64\", \"buffer\": {{\"type\": \"u64\", \"count\": {}, \"init\": \"zero\"}}}},\n",
                   kAcc64Words);
  s += fmt::format("    {{\"name\": \"scr\", \"buffer\": {{\"type\": \"u32\", \"count\": {}, \"init\": \"zero\"}}}},\n",
                   total);
  s += fmt::format("    {{\"name\": \"n\", \"value\": {}, \"type\": \"u32\"}},\n", paramN);
  s += fmt::format("    {{\"name\": \"m\", \"value\": {}, \"type\": \"u32\"}},\n", paramMask);
  s += fmt::format("    {{\"name\": \"f\", \"value\": {}, \"type\": \"f32\"}},\n", floatText(paramF));
  s += fmt::format("    {{\"name\": \"l\", \"value\": {}, \"type\": \"u64\"}}\n", paramL);
  s += "  ]\n}\n";
  return s;
}

}  // namespace ptxopt::fuzz
