// Small text helpers shared by the readers of hand-written and tool-written text (operand
// signatures, the mutator's instruction lines, nvdisasm output).
#pragma once

#include <string_view>

namespace ptxopt {

// `s` without leading and trailing blanks (space, tab, carriage return, newline).
inline std::string_view trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

}  // namespace ptxopt
