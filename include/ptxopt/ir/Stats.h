// Static figures of a module: what `ptxopt --stats` prints.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ptxopt/ir/Module.h"

namespace ptxopt {

struct ModuleStats {
  uint64_t functions = 0;        // .entry and .func, declarations included
  uint64_t definitions = 0;      // those with a body
  uint64_t entries = 0;          // .entry with a body
  uint64_t blocks = 0;
  uint64_t instructions = 0;     // pseudo statements (scopes, nested declarations) excluded
  uint64_t registers = 0;
  uint64_t globals = 0;
  std::map<std::string, uint64_t> opcodes;  // by mnemonic ("ld", "bar.warp.sync")
};

ModuleStats computeStats(const Module& m);
// Human-readable, one figure per line, opcodes by decreasing count.
std::string formatStats(const ModuleStats& s, const std::string& title);

}  // namespace ptxopt
