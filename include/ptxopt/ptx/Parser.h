// PTX text -> IR. Hand-written recursive descent for PTX ISA up to 9.0.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ptxopt/ir/Module.h"
#include "ptxopt/support/Diagnostics.h"

namespace ptxopt {

struct ParseOptions {
  // Maximum nesting of braces in initializers and of { } scopes in bodies.
  unsigned maxNesting = 256;
  // Maximum registers declared by one function (a guard against absurd `%r<N>` ranges).
  uint32_t maxRegistersPerFunction = 1u << 22;
};

// Parses one module. On error, reports `file:line:col: error: ...` to `diags` and returns
// nullptr; never throws. The CFG of every function is built.
std::unique_ptr<Module> parseModule(std::string_view text, const std::string& fileName, DiagEngine& diags,
                                    const ParseOptions& options = {});

// Parses and verifies one module (Verifier.h): what every tool reads. Malformed input, including
// an instruction none of whose operand shapes fits, is reported as `file:line:col: error: ...`
// and gives nullptr.
std::unique_ptr<Module> loadModule(std::string_view text, const std::string& fileName, DiagEngine& diags,
                                   const ParseOptions& options = {});

}  // namespace ptxopt
