#include "ptxopt/ir/Operand.h"

#include <unordered_map>

namespace ptxopt {
namespace {

constexpr SpecialRegInfo kSpecialRegs[] = {
#define PTX_SREG(E, NAME, SHAPE, UNIFORMITY) {NAME, SpecialShape::SHAPE, #UNIFORMITY[0] != 'V', #UNIFORMITY[0] == 'F'},
#include "ptxopt/ir/SpecialRegs.def"
};

constexpr PredefinedConstant kConstants[] = {
#define PTX_CONST(E, NAME, VALUE) {NAME, VALUE},
#include "ptxopt/ir/SpecialRegs.def"
};

constexpr std::string_view kComponents[] = {"", ".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a"};

}  // namespace

const SpecialRegInfo& specialRegInfo(SpecialReg r) { return kSpecialRegs[static_cast<size_t>(r)]; }

std::optional<SpecialReg> lookupSpecialReg(std::string_view base) {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string_view, SpecialReg>();
    for (size_t i = 0; i < static_cast<size_t>(SpecialReg::NumSpecialRegs); ++i)
      m->emplace(kSpecialRegs[i].name, static_cast<SpecialReg>(i));
    return m;
  }();
  auto it = index->find(base);
  if (it == index->end()) return std::nullopt;
  return it->second;
}

std::optional<uint16_t> lookupPredefinedConstant(std::string_view name) {
  for (size_t i = 0; i < sizeof(kConstants) / sizeof(kConstants[0]); ++i)
    if (kConstants[i].name == name) return static_cast<uint16_t>(i);
  return std::nullopt;
}

const PredefinedConstant& predefinedConstant(uint16_t index) { return kConstants[index]; }

std::string_view componentName(Component c) { return kComponents[static_cast<size_t>(c)]; }

std::optional<Component> lookupComponent(std::string_view spelling) {
  for (size_t i = 1; i < sizeof(kComponents) / sizeof(kComponents[0]); ++i)
    if (kComponents[i] == spelling) return static_cast<Component>(i);
  return std::nullopt;
}

}  // namespace ptxopt
