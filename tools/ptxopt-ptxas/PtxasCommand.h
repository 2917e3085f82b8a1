// What ptxopt-ptxas needs to know about a ptxas command line: where its PTX inputs are, and
// whether it asks for something ptxopt must stay out of (debug code, no optimization, the
// version, PTX that does not come from a file).
#pragma once

#include <string>
#include <vector>

namespace ptxopt::tools {

struct PtxasCommand {
  // The arguments, as given (without nvcc's leading ptxas path).
  std::vector<std::string> args;
  // Each PTX input: the argument that names it and, for a comma list ("a.ptx,b.ptx"), which
  // element of it.
  struct Input {
    size_t arg = 0;
    size_t part = 0;
    std::string path;
  };
  std::vector<Input> inputs;

  bool version = false;         // --version / -V
  bool help = false;            // --help / -h
  bool debug = false;           // --device-debug / -g
  bool noOptimization = false;  // --opt-level 0 / -O0
  // PTX or options ptxopt-ptxas cannot see: --input-as-string / -ias, --options-file / -optf.
  std::string unseen;

  // The arguments with each input replaced by replacements[k] (same order as `inputs`).
  std::vector<std::string> withInputs(const std::vector<std::string>& replacements) const;
};

// Reads a ptxas 13 command line. An argument that does not start with '-' and is not the value of
// an option that takes one is an input when it names a regular file (or a comma list of them).
PtxasCommand parsePtxasCommand(std::vector<std::string> args);

}  // namespace ptxopt::tools
