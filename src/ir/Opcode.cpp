#include "ptxopt/ir/Opcode.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace ptxopt {

using namespace OpFlag;

constexpr OpcodeInfo kOpcodeTable[] = {
#define PTX_OP(E, NAME, FLAGS, SIGNATURE) {NAME, FLAGS, SIGNATURE},
#include "ptxopt/ir/Opcodes.def"
#undef PTX_OP
};
static_assert(sizeof(kOpcodeTable) / sizeof(kOpcodeTable[0]) == static_cast<size_t>(Opcode::NumOpcodes));

namespace {

struct MnemonicIndex {
  std::unordered_map<std::string_view, Opcode> byName;
  unsigned maxComponents = 1;
  MnemonicIndex() {
    for (size_t i = 0; i < static_cast<size_t>(Opcode::NumOpcodes); ++i) {
      const OpcodeInfo& info = kOpcodeTable[i];
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

std::optional<Opcode> lookupOpcode(std::string_view dottedName) {
  const auto& idx = mnemonicIndex().byName;
  auto it = idx.find(dottedName);
  if (it == idx.end()) return std::nullopt;
  return it->second;
}

unsigned maxOpcodeComponents() { return mnemonicIndex().maxComponents; }

}  // namespace ptxopt
