#include "ptxopt/ir/Operand.h"

#include "ptxopt/support/NameMap.h"

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
    auto* m = new NameMap<SpecialReg>();
    for (size_t i = 0; i < static_cast<size_t>(SpecialReg::NumSpecialRegs); ++i)
      m->insert(kSpecialRegs[i].name, static_cast<SpecialReg>(i));
    return m;
  }();
  if (const SpecialReg* s = index->find(base)) return *s;
  return std::nullopt;
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

std::optional<VideoSelector> lookupVideoSelector(std::string_view spelling) {
  if (spelling.size() < 3 || spelling[0] != '.' || (spelling[1] != 'b' && spelling[1] != 'h')) return std::nullopt;
  VideoSelector s;
  s.halves = spelling[1] == 'h';
  const std::string_view digits = spelling.substr(2);
  if (digits.size() > (s.halves ? 2u : 4u)) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > (s.halves ? '3' : '7')) return std::nullopt;
    s.digit[s.count++] = static_cast<uint8_t>(c - '0');
  }
  return s;
}

std::string videoSelectorName(const VideoSelector& s) {
  std::string out = s.halves ? ".h" : ".b";
  for (unsigned k = 0; k < s.count; ++k) out += static_cast<char>('0' + s.digit[k]);
  return out;
}

// Bit 20: present; bit 19: half-words; bits 16-18: the count; digit k in bits 4k..4k+3.
int64_t packVideoSelector(const VideoSelector& s) {
  int64_t v = (int64_t{1} << 20) | (int64_t{s.halves} << 19) | (int64_t{s.count} << 16);
  for (unsigned k = 0; k < s.count; ++k) v |= int64_t{s.digit[k]} << (4 * k);
  return v;
}

std::optional<VideoSelector> unpackVideoSelector(int64_t value) {
  if (!(value & (int64_t{1} << 20))) return std::nullopt;
  VideoSelector s;
  s.halves = (value >> 19) & 1;
  s.count = static_cast<uint8_t>((value >> 16) & 7);
  for (unsigned k = 0; k < s.count && k < 4; ++k) s.digit[k] = static_cast<uint8_t>((value >> (4 * k)) & 15);
  return s;
}

}  // namespace ptxopt
