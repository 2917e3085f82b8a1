// Instruction operands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptxopt {

using RegId = uint32_t;
constexpr RegId kNoReg = UINT32_MAX;
constexpr uint32_t kNoLabel = UINT32_MAX;

enum class SpecialReg : uint16_t {
#define PTX_SREG(E, NAME, SHAPE, UNIFORMITY) E,
#include "ptxopt/ir/SpecialRegs.def"
  NumSpecialRegs
};
enum class SpecialShape : uint8_t { Scalar, Vector, Numbered };
struct SpecialRegInfo {
  std::string_view name;
  SpecialShape shape;
  bool uniform;  // equal for every lane of a warp
  bool fixed;    // equal for every thread of a CTA and unchanged while the kernel runs
};
const SpecialRegInfo& specialRegInfo(SpecialReg r);
// The largest number the front end reads as part of a numbered special register's name
// (%envreg<N>, %pm<N>): above it, %pm300 is an ordinary register name.
inline constexpr uint32_t kMaxSpecialRegNumber = 255;
std::optional<SpecialReg> lookupSpecialReg(std::string_view base);

// Predefined constants (WARP_SZ): an operand naming one is an immediate with the constant's
// value, flag Predefined and aux = its index, so that it prints under its name.
struct PredefinedConstant {
  std::string_view name;
  int64_t value;
};
std::optional<uint16_t> lookupPredefinedConstant(std::string_view name);
const PredefinedConstant& predefinedConstant(uint16_t index);

// Vector components written after a register: %tid.x, %v.w, %c.r ...
enum class Component : uint8_t { None, X, Y, Z, W, R, G, B, A };
std::string_view componentName(Component c);  // ".x"
std::optional<Component> lookupComponent(std::string_view spelling);

// A video instruction's selector written onto a register operand: `%r2.b3210` picks bytes of
// the pair (a, b) (digits 0-7), `%r2.h10` half-words (digits 0-3), `%r1.h0` or `%r1.b10` on a
// destination is a mask. Digits are kept as written, left to right: the first names the
// highest element.
struct VideoSelector {
  bool halves = false;   // .h (else .b)
  uint8_t count = 0;     // 1 to 4 digits (.h: 1 or 2)
  uint8_t digit[4] = {};
  // The element each position i (0 = lowest) selects: digit[count - 1 - i].
  uint8_t at(unsigned i) const { return digit[count - 1 - i]; }
  bool operator==(const VideoSelector&) const = default;
};
std::optional<VideoSelector> lookupVideoSelector(std::string_view spelling);
std::string videoSelectorName(const VideoSelector& s);  // ".b3210"
// Packed into a Reg operand's `value` (0: none) and back.
int64_t packVideoSelector(const VideoSelector& s);
std::optional<VideoSelector> unpackVideoSelector(int64_t value);

enum class OperandKind : uint8_t {
  None,
  Reg,      // id = RegId, aux = Component, value = a packed VideoSelector (0: none)
  Special,  // id = SpecialReg, aux = Component, value = number of a numbered register
  Imm,      // value = the integer (two's complement); flags Hex / UnsignedSuffix / Predefined
  FImm,     // value = bit pattern; aux = FloatForm
  Label,    // id = label index in the function
  Symbol,   // id = name in the module's string pool; value = offset (flag HasOffset)
  Address,  // [base+offset]: aux = AddressBase, id = RegId or symbol id, value = offset
  Vector,   // {a, b, ...}: aux = element count, id = index of the first element
  Pair,     // a|b (two results of one instruction): aux = 2, id = first element
  List,     // (a, b, ...) in calls: aux = element count, id = first element
  Bracket,  // [a, b, {c, d}] texture/surface address: aux = count, id = first element
  Sink,     // _
};

enum class FloatForm : uint16_t { F32Hex, F64Hex, Decimal };
enum class AddressBase : uint16_t { None, Reg, Symbol };

namespace OperandFlag {
enum : uint8_t {
  Negated = 1 << 0,         // !%p
  Hex = 1 << 1,             // integer written in hexadecimal
  UnsignedSuffix = 1 << 2,  // integer written with a U suffix
  HasOffset = 1 << 3,       // symbol+offset
  Pm64 = 1 << 4,            // %pm0_64 and friends
  Minus = 1 << 5,           // integer written with a leading minus
  Predefined = 1 << 6,      // integer written as a predefined constant (aux: which), plus an offset
};
}

struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t flags = 0;
  uint16_t aux = 0;
  uint32_t id = 0;
  int64_t value = 0;

  static Operand reg(RegId r, Component c = Component::None) {
    Operand o;
    o.kind = OperandKind::Reg;
    o.id = r;
    o.aux = static_cast<uint16_t>(c);
    return o;
  }
  static Operand imm(int64_t v) {
    Operand o;
    o.kind = OperandKind::Imm;
    o.value = v;
    if (v < 0) o.flags |= OperandFlag::Minus;
    return o;
  }
  static Operand label(uint32_t labelIndex) {
    Operand o;
    o.kind = OperandKind::Label;
    o.id = labelIndex;
    return o;
  }
  static Operand symbol(uint32_t nameId) {
    Operand o;
    o.kind = OperandKind::Symbol;
    o.id = nameId;
    return o;
  }
  static Operand special(SpecialReg r, Component c = Component::None) {
    Operand o;
    o.kind = OperandKind::Special;
    o.id = static_cast<uint32_t>(r);
    o.aux = static_cast<uint16_t>(c);
    return o;
  }

  bool isReg() const { return kind == OperandKind::Reg; }
  bool isImm() const { return kind == OperandKind::Imm; }
  bool isLabel() const { return kind == OperandKind::Label; }
  bool isComposite() const {
    return kind == OperandKind::Vector || kind == OperandKind::Pair || kind == OperandKind::List ||
           kind == OperandKind::Bracket;
  }
  bool negated() const { return flags & OperandFlag::Negated; }
  Component component() const { return static_cast<Component>(aux); }
  AddressBase addressBase() const { return static_cast<AddressBase>(aux); }
  std::optional<VideoSelector> videoSelector() const {
    return kind == OperandKind::Reg ? unpackVideoSelector(value) : std::nullopt;
  }
  uint32_t elementCount() const { return aux; }

  bool operator==(const Operand& o) const {
    return kind == o.kind && flags == o.flags && aux == o.aux && id == o.id && value == o.value;
  }
};
static_assert(sizeof(Operand) == 16, "operands stay small");

}  // namespace ptxopt
