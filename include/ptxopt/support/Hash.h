// A fast non-cryptographic hash for names and cache keys: FNV-1a, 64 bits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ptxopt {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;

// FNV-1a of `s`, continuing from `h`.
inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnvOffset) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// `h` as 16 lower-case hex digits.
inline std::string hex16(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace ptxopt
