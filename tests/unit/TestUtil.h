#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ptxopt/ir/IR.h"
#include "ptxopt/passes/PtxasModel.h"
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

// The block named `name` (its label, or its place in the layout).
inline BasicBlock* blockNamed(Function& f, std::string_view name) {
  for (BasicBlock* b : f.blocks())
    if (b->name() == name) return b;
  throw std::runtime_error("no block " + std::string(name));
}

// The first guarded bra of the function, in layout order.
inline const Instruction* firstConditionalBra(const Function& f) {
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts())
      if (i->is(Opcode::Bra) && i->hasGuard()) return i;
  throw std::runtime_error("no conditional bra");
}

// The model of ptxas with these knobs (`side-limit`, `divergence-cost`) set, the others default.
inline PtxasModel modelWith(std::map<std::string, std::string> overrides) {
  return PtxasModel(KnobValues(PtxasModel::knobs(), overrides));
}

}  // namespace ptxopt::test
