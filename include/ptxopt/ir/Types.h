// Scalar types, state spaces, comparison and rounding modifiers, and the Mod handle that an
// instruction keeps for each of its dotted modifiers.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace ptxopt {

class StringPool;

enum class TypeClass : uint8_t { Bit, Unsigned, Signed, Float, Pred, Opaque, None };

enum class ScalarType : uint8_t {
#define PTX_TYPE(E, S, BITS, CLASS) E,
#include "ptxopt/ir/Types.def"
#undef PTX_TYPE
  NumTypes,
  None = 0xff
};

std::string_view typeName(ScalarType t);  // ".b32"

// Width and class of each type, inline and constexpr: the emulator's loops fold them.
namespace detail {
struct TypeFacts {
  unsigned bits;
  TypeClass cls;
};
inline constexpr TypeFacts kTypeFacts[] = {
#define PTX_TYPE(E, S, BITS, CLASS) {BITS, TypeClass::CLASS},
#include "ptxopt/ir/Types.def"
#undef PTX_TYPE
};
}  // namespace detail
constexpr unsigned typeBits(ScalarType t) {  // 1 for .pred; 0 for None
  return static_cast<size_t>(t) < std::size(detail::kTypeFacts) ? detail::kTypeFacts[static_cast<size_t>(t)].bits : 0;
}
// The type that copies a register of type `t` whatever it holds (`mov`): .pred for a
// predicate, the bit type of its width otherwise; None for 8-bit registers, which no `mov`
// takes (ptxas: "Unexpected instruction types").
constexpr ScalarType copyType(ScalarType t) {
  switch (typeBits(t)) {
    case 1: return ScalarType::Pred;
    case 16: return ScalarType::B16;
    case 32: return ScalarType::B32;
    case 64: return ScalarType::B64;
    case 128: return ScalarType::B128;
    default: return ScalarType::None;
  }
}
constexpr TypeClass typeClass(ScalarType t) {
  return static_cast<size_t>(t) < std::size(detail::kTypeFacts) ? detail::kTypeFacts[static_cast<size_t>(t)].cls : TypeClass::None;
}

enum class StateSpace : uint8_t {
  Generic,
#define PTX_SPACE(E, S) E,
#include "ptxopt/ir/Modifiers.def"
  Reg,  // only for declarations and function parameters
  NumSpaces
};
std::string_view spaceName(StateSpace s);  // ".global"; "" for Generic
// .shared, .shared::cta and .shared::cluster all address shared memory.
inline bool isSharedSpace(StateSpace s) {
  return s == StateSpace::Shared || s == StateSpace::SharedCta || s == StateSpace::SharedCluster;
}
inline bool isParamSpace(StateSpace s) {
  return s == StateSpace::Param || s == StateSpace::ParamEntry || s == StateSpace::ParamFunc;
}

enum class CmpOp : uint8_t {
#define PTX_CMP(E, S) E,
#include "ptxopt/ir/Modifiers.def"
  NumCmps
};

enum class Rounding : uint8_t {
#define PTX_ROUND(E, S) E,
#include "ptxopt/ir/Modifiers.def"
  NumRoundings
};

// A dotted modifier of an instruction. Known modifiers are small numbers laid out as
// [None][types][spaces][comparisons][roundings][others]; a modifier the table does not know is
// the id of its spelling in the module's string pool with the top bit set.
enum class Mod : uint32_t {
  None = 0,
#define PTX_TYPE(E, S, BITS, CLASS) T_##E,
#include "ptxopt/ir/Types.def"
#undef PTX_TYPE
#define PTX_SPACE(E, S) S_##E,
#include "ptxopt/ir/Modifiers.def"
#define PTX_CMP(E, S) C_##E,
#include "ptxopt/ir/Modifiers.def"
#define PTX_ROUND(E, S) R_##E,
#include "ptxopt/ir/Modifiers.def"
#define PTX_MOD(E, S) E,
#include "ptxopt/ir/Modifiers.def"
  NumKnown,
  // `.lo` and `.hi` are spelled once: comparisons (setp.lo) and halves (mul.lo) share them.
  Lo = C_Lo,
  Hi = C_Hi,
};

constexpr uint32_t kUnknownModBit = 0x80000000u;
inline bool isKnownMod(Mod m) { return (static_cast<uint32_t>(m) & kUnknownModBit) == 0; }
inline Mod unknownMod(uint32_t poolId) { return static_cast<Mod>(poolId | kUnknownModBit); }

// The modifier spelled `spelling` (with its leading dot), interning it in `pool` when the
// table does not know it.
Mod lookupMod(std::string_view spelling, StringPool& pool);
// Known modifiers only; Mod::None when unknown.
Mod lookupKnownMod(std::string_view spelling);
std::string_view modName(Mod m, const StringPool& pool);

inline Mod typeMod(ScalarType t) { return static_cast<Mod>(static_cast<uint32_t>(t) + 1); }
inline Mod spaceMod(StateSpace s) {
  return static_cast<Mod>(static_cast<uint32_t>(Mod::S_Global) + static_cast<uint32_t>(s) - 1);
}
inline Mod cmpMod(CmpOp c) {
  return static_cast<Mod>(static_cast<uint32_t>(Mod::C_Eq) + static_cast<uint32_t>(c));
}
inline Mod roundingMod(Rounding r) {
  return static_cast<Mod>(static_cast<uint32_t>(Mod::R_Rn) + static_cast<uint32_t>(r));
}
namespace detail {
// The position of `m` in the run of `count` modifiers that starts at `first`.
template <typename E>
std::optional<E> modInRange(Mod m, Mod first, uint32_t count) {
  uint32_t v = static_cast<uint32_t>(m), f = static_cast<uint32_t>(first);
  if (v - f < count) return static_cast<E>(v - f);
  return std::nullopt;
}
}  // namespace detail

// What a modifier says, when it is one of the types, spaces, comparisons or roundings (inline:
// Instruction::type() and the others ask these of every modifier).
inline std::optional<ScalarType> modType(Mod m) {
  return detail::modInRange<ScalarType>(m, Mod::T_B8, static_cast<uint32_t>(ScalarType::NumTypes));
}
inline std::optional<StateSpace> modSpace(Mod m) {
  auto s = detail::modInRange<uint32_t>(m, Mod::S_Global, static_cast<uint32_t>(StateSpace::Reg) - 1);
  if (!s) return std::nullopt;
  return static_cast<StateSpace>(*s + 1);
}
inline std::optional<CmpOp> modCmp(Mod m) {
  return detail::modInRange<CmpOp>(m, Mod::C_Eq, static_cast<uint32_t>(CmpOp::NumCmps));
}
inline std::optional<Rounding> modRounding(Mod m) {
  return detail::modInRange<Rounding>(m, Mod::R_Rn, static_cast<uint32_t>(Rounding::NumRoundings));
}

}  // namespace ptxopt
