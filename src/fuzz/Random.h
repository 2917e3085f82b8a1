#pragma once
// The generator's own random source: xoshiro256** seeded through SplitMix64, with range and
// choice helpers written out here so that a seed means the same kernel on every machine and
// standard library (std distributions are implementation-defined).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ptxopt::fuzz {

class Random {
 public:
  explicit Random(uint64_t seed);

  uint64_t next();
  // Uniform in [0, n); n > 0. Rejection sampling, so no modulo bias.
  uint64_t below(uint64_t n);
  // Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi);
  // True with probability percent/100.
  bool chance(unsigned percent) { return below(100) < percent; }
  bool coin() { return (next() >> 63) != 0; }
  // An index drawn with the given weights (at least one weight positive).
  size_t weighted(const std::vector<unsigned>& weights);
  size_t weighted(std::initializer_list<unsigned> weights);
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }
  template <typename T>
  T pick(std::initializer_list<T> items) {
    return items.begin()[below(items.size())];
  }
  // Fisher-Yates with this generator.
  template <typename T>
  void shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i > 1; --i) {
      size_t j = below(i);
      T tmp = items[i - 1];
      items[i - 1] = items[j];
      items[j] = tmp;
    }
  }
  // A value skewed toward small numbers in [lo, hi]: the minimum of two uniform draws.
  int64_t small(int64_t lo, int64_t hi);

 private:
  uint64_t s_[4];
};

}  // namespace ptxopt::fuzz
