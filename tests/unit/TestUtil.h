#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ptxopt/ir/IR.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt::test {

// Wraps a function body into a minimal module.
inline std::string kernel(const std::string& body, const std::string& params = "") {
  return ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(" + params + ")\n{\n" + body + "\n}\n";
}

inline std::unique_ptr<Module> parseOk(const std::string& text) {
  DiagEngine diags;
  auto m = parseModule(text, "test.ptx", diags);
  EXPECT_TRUE(m) << diags.str();
  return m;
}

// Returns the first error message (formatted), or "" when the parse succeeded.
inline std::string parseError(const std::string& text) {
  DiagEngine diags;
  auto m = parseModule(text, "test.ptx", diags);
  if (m) return "";
  return formatDiagnostic(diags.diagnostics().front());
}

inline Function& onlyFunction(Module& m) {
  for (auto& f : m.functions())
    if (f->hasBody) return *f;
  throw std::runtime_error("no function with a body");
}

}  // namespace ptxopt::test
