// ptxopt: PTX in, optimized PTX out.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "ptxopt/ir/Stats.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Version.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"ptxopt: reads PTX, optimizes its control flow, writes PTX that ptxas accepts"};
  std::string input;
  std::string output = "-";
  bool verify = false;
  bool stats = false;
  app.add_option("input", input, "PTX file to read ('-' for standard input)")->required();
  app.add_option("-o,--output", output, "where to write the PTX ('-' for standard output)");
  app.add_flag("--verify", verify, "check the IR and exit 1 if it is malformed");
  app.add_flag("--stats", stats, "print functions, blocks, instructions and per-opcode counts to stderr");
  app.set_version_flag("--version", std::string("ptxopt ") + ptxopt::kVersion);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;  // usage errors exit 1 like every other error
  }

  std::string text, error;
  if (!ptxopt::readFile(input, text, error)) {
    std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
    return 1;
  }
  std::string displayName = input == "-" ? "<stdin>" : input;
  ptxopt::DiagEngine diags;
  std::unique_ptr<ptxopt::Module> module = ptxopt::parseModule(text, displayName, diags);
  std::fputs(diags.str().c_str(), stderr);
  if (!module) return 1;
  if (verify) {
    ptxopt::DiagEngine vdiags;
    if (!ptxopt::verifyModule(*module, vdiags)) {
      std::fputs(vdiags.str().c_str(), stderr);
      return 1;
    }
  }
  if (stats) std::fputs(ptxopt::formatStats(ptxopt::computeStats(*module), displayName).c_str(), stderr);
  std::string out = ptxopt::printModule(*module);
  if (!ptxopt::writeFile(output, out, error)) {
    std::fprintf(stderr, "ptxopt: error: %s\n", error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxopt: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "ptxopt: internal error\n");
  }
  return 2;
}
