// What the fuzz targets share: failing loudly, parsing an input that must also verify, and the
// print -> reparse -> print check.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt::fuzz {

[[noreturn]] inline void fail(const char* target, const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "%s: %s\n--- first\n%s\n--- second\n%s\n", target, what, a.c_str(), b.c_str());
  std::abort();
}

// The module the input parses to when it also verifies; nullptr otherwise (ill-typed input is
// not the business of the optimizer or the emulator).
inline std::unique_ptr<Module> parseVerified(std::string_view text) {
  DiagEngine diags;
  return loadModule(text, "fuzz.ptx", diags);
}

// `m` printed; the print must parse again and print to the same text. Returns the printed
// module through `reparsed` when asked.
inline std::string printReparsePrint(const char* target, const Module& m, const char* name,
                                     std::unique_ptr<Module>* reparsed = nullptr) {
  std::string once = printModule(m);
  DiagEngine diags;
  auto m2 = parseModule(once, name, diags);
  if (!m2) fail(target, "the printed module does not parse", once, diags.str());
  std::string twice = printModule(*m2);
  if (once != twice) fail(target, "printing is not idempotent", once, twice);
  if (reparsed) *reparsed = std::move(m2);
  return once;
}

}  // namespace ptxopt::fuzz
