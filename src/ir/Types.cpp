#include "ptxopt/ir/Types.h"

#include "ptxopt/support/NameMap.h"
#include "ptxopt/support/StringPool.h"

namespace ptxopt {
namespace {

constexpr std::string_view kTypeNames[] = {
#define PTX_TYPE(E, S, BITS, CLASS) S,
#include "ptxopt/ir/Types.def"
#undef PTX_TYPE
};

constexpr std::string_view kSpaces[] = {
    "",
#define PTX_SPACE(E, S) S,
#include "ptxopt/ir/Modifiers.def"
    ".reg",
};

// Spellings of every known modifier, indexed by Mod.
constexpr std::string_view kModNames[] = {
    "",
#define PTX_TYPE(E, S, BITS, CLASS) S,
#include "ptxopt/ir/Types.def"
#undef PTX_TYPE
#define PTX_SPACE(E, S) S,
#include "ptxopt/ir/Modifiers.def"
#define PTX_CMP(E, S) S,
#include "ptxopt/ir/Modifiers.def"
#define PTX_ROUND(E, S) S,
#include "ptxopt/ir/Modifiers.def"
#define PTX_MOD(E, S) S,
#include "ptxopt/ir/Modifiers.def"
};
static_assert(sizeof(kModNames) / sizeof(kModNames[0]) == static_cast<size_t>(Mod::NumKnown));

const NameMap<Mod>& modIndex() {
  static const auto* index = [] {
    auto* m = new NameMap<Mod>();
    for (uint32_t i = 1; i < static_cast<uint32_t>(Mod::NumKnown); ++i) m->insert(kModNames[i], static_cast<Mod>(i));
    return m;
  }();
  return *index;
}

}  // namespace

// ScalarType::None (an instruction without a type modifier) has no row: empty name, 0 bits.
static bool known(ScalarType t) { return static_cast<size_t>(t) < std::size(kTypeNames); }
std::string_view typeName(ScalarType t) { return known(t) ? kTypeNames[static_cast<size_t>(t)] : std::string_view(); }

std::string_view spaceName(StateSpace s) { return kSpaces[static_cast<size_t>(s)]; }

Mod lookupKnownMod(std::string_view spelling) {
  const Mod* m = modIndex().find(spelling);
  return m ? *m : Mod::None;
}

Mod lookupMod(std::string_view spelling, StringPool& pool) {
  Mod m = lookupKnownMod(spelling);
  if (m != Mod::None) return m;
  return unknownMod(pool.intern(spelling));
}

std::string_view modName(Mod m, const StringPool& pool) {
  uint32_t v = static_cast<uint32_t>(m);
  if (v & kUnknownModBit) return pool.str(v & ~kUnknownModBit);
  return kModNames[v];
}

}  // namespace ptxopt
