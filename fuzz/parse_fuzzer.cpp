// Fuzz target for the front end. Beyond "never crash": whatever parses must print, reparse,
// verify, and print to the same text (print(parse(print(parse(x)))) == print(parse(x))).
#include <cstddef>
#include <cstdint>

#include "FuzzCommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptxopt;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  DiagEngine diags;
  auto m = parseModule(text, "fuzz.ptx", diags);
  if (!m) {
    if (!diags.hasErrors()) fuzz::fail("parse_fuzzer", "parse failed without an error", std::string(text), "");
    return 0;
  }
  DiagEngine vdiags;
  const bool verified = verifyModule(*m, vdiags);  // may report (ill-typed input parses); must not crash
  std::unique_ptr<Module> m2;
  std::string once = fuzz::printReparsePrint("parse_fuzzer", *m, "fuzz-printed.ptx", &m2);
  DiagEngine vdiags2;
  if (verified != verifyModule(*m2, vdiags2))
    fuzz::fail("parse_fuzzer", "verifier disagrees between a module and its reprint", once, vdiags.str() + vdiags2.str());
  return 0;
}
