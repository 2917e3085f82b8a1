#include "Random.h"

namespace ptxopt::fuzz {

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Random::Random(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& word : s_) word = splitmix64(state);
}

uint64_t Random::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Random::below(uint64_t n) {
  if (n <= 1) return 0;
  // Draws below 2^64 mod n are rejected, so the rest is a whole number of periods of n.
  uint64_t threshold = (0 - n) % n;
  for (;;) {
    uint64_t r = next();
    if (r >= threshold) return r % n;
  }
}

int64_t Random::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  if (span == 0) return static_cast<int64_t>(next());  // the whole 64-bit range
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span));
}

int64_t Random::small(int64_t lo, int64_t hi) {
  int64_t a = range(lo, hi), b = range(lo, hi);
  return a < b ? a : b;
}

size_t Random::weighted(const std::vector<unsigned>& weights) {
  uint64_t total = 0;
  for (unsigned w : weights) total += w;
  if (total == 0) return 0;
  uint64_t r = below(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  return weights.size() - 1;
}

size_t Random::weighted(std::initializer_list<unsigned> weights) {
  return weighted(std::vector<unsigned>(weights));
}

}  // namespace ptxopt::fuzz
