#include "ptxopt/ir/Opcode.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace ptxopt {
namespace {

using namespace OpFlag;

constexpr OpcodeInfo kOpcodes[] = {
#define PTX_OP(E, NAME, FLAGS, SIGNATURE) {NAME, FLAGS, SIGNATURE},
#include "ptxopt/ir/Opcodes.def"
#undef PTX_OP
};
static_assert(sizeof(kOpcodes) / sizeof(kOpcodes[0]) == static_cast<size_t>(Opcode::NumOpcodes));

struct MnemonicIndex {
  std::unordered_map<std::string_view, Opcode> byName;
  unsigned maxComponents = 1;
  MnemonicIndex() {
    for (size_t i = 0; i < static_cast<size_t>(Opcode::NumOpcodes); ++i) {
      const OpcodeInfo& info = kOpcodes[i];
      if (info.name.empty() || info.isPseudo()) continue;
      byName.emplace(info.name, static_cast<Opcode>(i));
      unsigned comps = 1 + static_cast<unsigned>(std::count(info.name.begin(), info.name.end(), '.'));
      maxComponents = std::max(maxComponents, comps);
    }
  }
};

const MnemonicIndex& mnemonicIndex() {
  static const MnemonicIndex index;
  return index;
}

}  // namespace

const OpcodeInfo& opcodeInfo(Opcode op) { return kOpcodes[static_cast<size_t>(op)]; }

std::optional<Opcode> lookupOpcode(std::string_view dottedName) {
  const auto& idx = mnemonicIndex().byName;
  auto it = idx.find(dottedName);
  if (it == idx.end()) return std::nullopt;
  return it->second;
}

unsigned maxOpcodeComponents() { return mnemonicIndex().maxComponents; }

}  // namespace ptxopt
