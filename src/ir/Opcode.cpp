#include "ptxopt/ir/Opcode.h"

#include <algorithm>
#include <string>

#include "ptxopt/support/NameMap.h"

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
  NameMap<Opcode> byName;
  unsigned maxComponents = 1;
  NameMap<unsigned> maxComponentsByFirst;  // "bar" -> 3 (bar.warp.sync), "ld" -> 1
  MnemonicIndex() {
    for (size_t i = 0; i < static_cast<size_t>(Opcode::NumOpcodes); ++i) {
      const OpcodeInfo& info = kOpcodeTable[i];
      if (info.name.empty() || info.isPseudo()) continue;
      byName.insert(info.name, static_cast<Opcode>(i));
      unsigned comps = 1 + static_cast<unsigned>(std::count(info.name.begin(), info.name.end(), '.'));
      maxComponents = std::max(maxComponents, comps);
      std::string_view first = info.name.substr(0, info.name.find('.'));
      maxComponentsByFirst.insert(first, 0);
      unsigned* most = maxComponentsByFirst.find(first);
      *most = std::max(*most, comps);
    }
  }
};

const MnemonicIndex& mnemonicIndex() {
  static const MnemonicIndex index;
  return index;
}

}  // namespace

std::optional<Opcode> lookupOpcode(std::string_view dottedName) {
  if (const Opcode* op = mnemonicIndex().byName.find(dottedName)) return *op;
  return std::nullopt;
}

unsigned maxOpcodeComponents() { return mnemonicIndex().maxComponents; }

unsigned maxOpcodeComponents(std::string_view first) {
  const unsigned* most = mnemonicIndex().maxComponentsByFirst.find(first);
  return most ? *most : 0;
}

}  // namespace ptxopt
