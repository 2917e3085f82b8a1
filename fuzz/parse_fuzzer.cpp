// Fuzz target for the front end. Beyond "never crash": whatever parses must print, reparse,
// verify, and print to the same text (print(parse(print(parse(x)))) == print(parse(x))).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "parse_fuzzer: %s\n--- first\n%s\n--- second\n%s\n", what, a.c_str(), b.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ptxopt::DiagEngine diags;
  auto m = ptxopt::parseModule(text, "fuzz.ptx", diags);
  if (!m) {
    if (!diags.hasErrors()) fail("parse failed without an error", std::string(text), "");
    return 0;
  }
  ptxopt::DiagEngine vdiags;
  ptxopt::verifyModule(*m, vdiags);  // may report (ill-typed input parses); must not crash
  std::string once = ptxopt::printModule(*m);
  ptxopt::DiagEngine diags2;
  auto m2 = ptxopt::parseModule(once, "fuzz-printed.ptx", diags2);
  if (!m2) fail("printed module does not parse", once, diags2.str());
  std::string twice = ptxopt::printModule(*m2);
  if (once != twice) fail("printing is not idempotent", once, twice);
  ptxopt::DiagEngine vdiags2;
  if (ptxopt::verifyModule(*m, vdiags2) != ptxopt::verifyModule(*m2, vdiags2))
    fail("verifier disagrees between a module and its reprint", once, vdiags2.str());
  return 0;
}
