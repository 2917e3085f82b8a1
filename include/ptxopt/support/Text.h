// Small text helpers shared by the readers of hand-written and tool-written text (operand
// signatures, the mutator's instruction lines, nvdisasm output) and by messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ptxopt {

// `v` as "0x" and lower-case hex digits, no padding ("0x100000200"): addresses and magic
// numbers in messages.
inline std::string hexNumber(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// `s` without leading and trailing blanks (space, tab, carriage return, newline).
inline std::string_view trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

}  // namespace ptxopt
