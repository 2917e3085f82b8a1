// What ptxas made of a module: nvdisasm's SASS text read into functions, straight-line blocks
// and instructions (each with the PTX line `--print-line-info` maps it to), the census that
// ptxopt-bench reports (instructions, branches, BSSY/BSYNC, barriers, predicated instructions),
// and the registers and spills that `ptxas -v` prints. Opcodes come from nvdisasm's text only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxopt::quality {

struct SassInstruction {
  uint32_t offset = 0;
  std::string opcode;     // "ISETP.GE.AND"
  std::string base;       // "ISETP": the opcode up to its first '.'
  std::string predicate;  // "@P0", "@!P1"; empty when unguarded
  std::string target;     // the label a BRA names ("`(.L_x_4)" -> ".L_x_4"), else empty
  std::string label;      // the label standing right before this instruction, else empty
  uint32_t ptxLine = 0;   // from the closest "//## File ..., line N" above; 0: none yet
  bool guarded() const { return !predicate.empty() && predicate != "@PT"; }
};

struct SassFunction {
  std::string name;
  bool isEntry = false;
  std::vector<SassInstruction> instructions;
};

// Reads `nvdisasm -c [--print-line-info]` output. Functions in the order nvdisasm prints them.
std::vector<SassFunction> parseNvdisasm(const std::string& text);

// True for what the census leaves out: NOPs and the branch-to-itself after the last EXIT.
bool isPadding(const SassFunction& f, size_t index);

struct SassCensus {
  uint64_t instructions = 0;  // without padding
  uint64_t bra = 0, brx = 0, bssy = 0, bsync = 0, bar = 0, predicated = 0, exit = 0;
  void add(const SassCensus& o);
};
// The census figures by their quality.json keys, in the order the report writes them.
struct CensusField {
  const char* key;
  uint64_t SassCensus::*member;
};
inline constexpr CensusField kCensusFields[] = {
    {"sass_instructions", &SassCensus::instructions}, {"sass_bra", &SassCensus::bra},
    {"sass_brx", &SassCensus::brx},                   {"sass_bssy", &SassCensus::bssy},
    {"sass_bsync", &SassCensus::bsync},               {"sass_bar", &SassCensus::bar},
    {"sass_predicated", &SassCensus::predicated},     {"sass_exit", &SassCensus::exit},
};
SassCensus census(const SassFunction& f);

// A straight-line run of SASS: it starts at a label or after a control transfer (BRA, BRX, JMP,
// JMX, EXIT, RET, CALL, BSYNC, guarded or not) and is issued as a whole each time it is entered.
struct SassBlock {
  size_t first = 0, last = 0;  // instruction indices, inclusive
};
std::vector<SassBlock> sassBlocks(const SassFunction& f);

// `ptxas -v` figures per function name.
struct PtxasResources {
  int registers = -1;  // -1: not reported
  uint64_t spillStores = 0, spillLoads = 0, stackFrame = 0;
};
std::map<std::string, PtxasResources> parsePtxasVerbose(const std::string& text);

}  // namespace ptxopt::quality
