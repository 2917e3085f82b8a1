#include "ptxopt/ir/Signature.h"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "ptxopt/ir/Instruction.h"
#include "ptxopt/support/StringPool.h"
#include "ptxopt/support/Text.h"

namespace ptxopt {
namespace {

// Splits on `sep` (no nesting in the grammar).
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t k = 0; k <= s.size(); ++k)
    if (k == s.size() || s[k] == sep) {
      parts.push_back(trim(s.substr(start, k - start)));
      start = k + 1;
    }
  return parts;
}

bool parseTypeRule(std::string_view t, TypeRule& rule, bool& wider) {
  wider = !t.empty() && t.back() == '+';
  if (wider) t.remove_suffix(1);
  static constexpr std::pair<std::string_view, TypeRule> kRules[] = {
      {"T", TypeRule::T},       {"T2", TypeRule::T2},     {"W", TypeRule::Wide},  {"A", TypeRule::Addr},
      {"pred", TypeRule::Pred}, {"b16", TypeRule::B16},   {"b32", TypeRule::B32}, {"u32", TypeRule::U32},
      {"s32", TypeRule::S32},   {"b64", TypeRule::B64},   {"u64", TypeRule::U64}, {"any", TypeRule::Any},
  };
  for (const auto& [name, r] : kRules)
    if (name == t) {
      rule = r;
      return true;
    }
  return false;
}

// One `name<marks>:TYPE` element; `marks` are ? _ ^ &.
bool parseElement(std::string_view text, std::string_view& name, TypeRule& type, bool& wider, bool& optional,
                  uint16_t& accept, bool second, std::string& error) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    error = "'" + std::string(text) + "' has no type";
    return false;
  }
  std::string_view head = text.substr(0, colon);
  while (!head.empty()) {
    char c = head.back();
    if (c == '?') optional = true;
    else if (c == '_') accept |= second ? OperandAccept::Sink2 : OperandAccept::Sink;
    else if (c == '^') accept |= OperandAccept::Special;
    else if (c == '&') accept |= OperandAccept::Symbol;
    else break;
    head.remove_suffix(1);
  }
  name = head;
  if (!parseTypeRule(text.substr(colon + 1), type, wider)) {
    error = "unknown type rule in '" + std::string(text) + "'";
    return false;
  }
  return true;
}

bool parseOperand(std::string_view text, bool def, OperandSpec& spec, std::string& error) {
  spec.def = def;
  if (text.empty()) {
    error = "empty operand";
    return false;
  }
  char first = text.front();
  if (first == '[' || first == '@' || first == '$') {
    if (def) {
      error = "'" + std::string(text) + "' cannot be written";
      return false;
    }
    if (first == '[') {
      if (text.back() != ']') {
        error = "unclosed '['";
        return false;
      }
      spec.role = OperandRole::Address;
      spec.name = text.substr(1, text.size() - 2);
      size_t colon = spec.name.find(':');
      if (colon != std::string_view::npos) {  // [a:generic global ...]: the spaces allowed
        for (std::string_view sp : split(spec.name.substr(colon + 1), ' ')) {
          if (sp.empty()) continue;
          StateSpace space = StateSpace::Generic;
          if (sp != "generic") {
            auto found = modSpace(lookupKnownMod("." + std::string(sp)));
            if (!found) {
              error = "unknown state space '" + std::string(sp) + "'";
              return false;
            }
            space = *found;
          }
          spec.spaces |= 1u << static_cast<unsigned>(space);
        }
        spec.name = spec.name.substr(0, colon);
      }
    } else {
      spec.role = first == '@' ? OperandRole::Label : OperandRole::Table;
      spec.name = text.substr(1);
    }
    return true;
  }
  if (first == '#') {
    spec.accept |= OperandAccept::ImmOnly;
    text.remove_prefix(1);
  }
  // {name}:T, <name>:T
  if (first == '{' || first == '<') {
    char close = first == '{' ? '}' : '>';
    size_t end = text.find(close);
    if (end == std::string_view::npos) {
      error = "unclosed '" + std::string(1, first) + "'";
      return false;
    }
    spec.accept |= first == '{' ? OperandAccept::VecByMod : OperandAccept::Pack;
    std::string inner = std::string(text.substr(1, end - 1)) + std::string(text.substr(end + 1));
    std::string_view name;
    if (!parseElement(inner, name, spec.type, spec.wider, spec.optional, spec.accept, false, error)) return false;
    // `inner` is a temporary: keep the name from the original text.
    spec.name = text.substr(1, name.size());
    return true;
  }
  size_t bar = text.find('|');
  if (bar != std::string_view::npos) {
    if (!def) {
      error = "a pair is only written";
      return false;
    }
    spec.accept |= OperandAccept::Pair;
    bool unusedWider = false, unusedOptional = false;
    if (!parseElement(text.substr(bar + 1), spec.name2, spec.type2, unusedWider, unusedOptional, spec.accept, true, error))
      return false;
    text = text.substr(0, bar);
  }
  return parseElement(text, spec.name, spec.type, spec.wider, spec.optional, spec.accept, false, error);
}

// The type classes a signature may name in T(...): its letter there, its prefix in messages.
struct TypeClassName {
  TypeClass cls;
  std::string_view letter, prefix;
};
constexpr TypeClassName kTypeClassNames[] = {{TypeClass::Bit, "b", ".b"},
                                             {TypeClass::Unsigned, "u", ".u"},
                                             {TypeClass::Signed, "s", ".s"},
                                             {TypeClass::Float, "f", ".f"},
                                             {TypeClass::Pred, "pred", ".pred"}};

// A space-separated list that opens `text` (its items start at `from`, it ends at `close`): each
// item goes to `item`, which returns false (with `error` set) to reject it; `text` is left after
// the list. False on an unclosed list or a rejected item.
template <typename Item>
bool takePrefixList(std::string_view& text, size_t from, char close, const char* what, std::string& error, Item&& item) {
  size_t end = text.find(close);
  if (end == std::string_view::npos) {
    error = std::string("unclosed ") + what;
    return false;
  }
  for (std::string_view x : split(text.substr(from, end - from), ' '))
    if (!x.empty() && !item(x)) return false;
  text = trim(text.substr(end + 1));
  return true;
}

bool parseShape(std::string_view text, OperandShape& shape, std::string& error) {
  text = trim(text);
  // A condition, not an address: [.lo .hi]
  if (text.size() > 1 && text[0] == '[' && text[1] == '.' &&
      !takePrefixList(text, 1, ']', "condition", error, [&](std::string_view m) {
        Mod mod = lookupKnownMod(m);
        if (mod == Mod::None) error = "unknown modifier '" + std::string(m) + "' in a condition";
        shape.when.push_back(mod);
        return mod != Mod::None;
      }))
    return false;
  // The classes T may have: T(u s f)
  if (text.size() > 1 && text[0] == 'T' && text[1] == '(' &&
      !takePrefixList(text, 2, ')', "type-class list", error, [&](std::string_view c) {
        for (const TypeClassName& n : kTypeClassNames)
          if (c == n.letter) {
            shape.typeClasses |= static_cast<uint8_t>(1u << static_cast<unsigned>(n.cls));
            return true;
          }
        if (std::optional<ScalarType> t = modType(lookupKnownMod("." + std::string(c)))) {
          shape.types |= uint64_t(1) << static_cast<unsigned>(*t);
          return true;
        }
        error = "unknown type class '" + std::string(c) + "' (b, u, s, f, pred, or a type: f32)";
        return false;
      }))
    return false;
  std::string_view defs, uses = text;
  size_t eq = text.find('=');
  if (eq != std::string_view::npos) {
    defs = trim(text.substr(0, eq));
    uses = trim(text.substr(eq + 1));
  }
  for (int part = 0; part < 2; ++part) {
    std::string_view list = part == 0 ? defs : uses;
    if (list.empty()) continue;
    for (std::string_view op : split(list, ',')) {
      OperandSpec spec;
      if (!parseOperand(op, part == 0, spec, error)) return false;
      if (!spec.optional && !shape.ops.empty() && shape.ops.back().optional) {
        error = "an optional operand is followed by a required one";
        return false;
      }
      shape.ops.push_back(spec);
    }
  }
  for (const OperandSpec& s : shape.ops) {
    if (s.def) ++shape.numDefs;
    if (!s.optional) ++shape.minOps;
    for (TypeRule r : {s.type, s.type2}) {
      shape.usesT |= r == TypeRule::T || r == TypeRule::Wide;
      shape.usesT2 |= r == TypeRule::T2;
    }
  }
  if (shape.numDefs > 1) {
    error = "more than one written operand";
    return false;
  }
  return true;
}

struct SignatureTable {
  std::array<Signature, static_cast<size_t>(Opcode::NumOpcodes)> byOpcode;
  SignatureTable() {
    for (size_t k = 0; k < byOpcode.size(); ++k) {
      std::string error;
      const OpcodeInfo& info = opcodeInfo(static_cast<Opcode>(k));
      if (!parseSignature(info.signature, byOpcode[k], error)) {
        // The table is part of the program: a bad entry is a bug found by the first test run.
        std::fprintf(stderr, "ptxopt: internal error: signature of '%.*s': %s\n", static_cast<int>(info.name.size()),
                     info.name.data(), error.c_str());
        std::abort();
      }
    }
  }
};

bool conditionHolds(const OperandShape& s, const Instruction& inst) {
  for (Mod m : s.when)
    if (inst.has(m)) return true;
  return false;
}

std::string shapeText(std::string_view mnemonic, const OperandShape& s) {
  std::string out(mnemonic);
  bool first = true;
  for (const OperandSpec& o : s.ops) {
    out += first ? " " : (o.optional ? "" : ", ");
    if (o.optional) out += first ? "[" : "[, ";
    first = false;
    switch (o.role) {
      case OperandRole::Address: out += "[" + std::string(o.name) + "]"; break;
      case OperandRole::Label: out += std::string(o.name); break;
      case OperandRole::Table: out += std::string(o.name); break;
      case OperandRole::Value:
        if (o.has(OperandAccept::VecByMod)) out += "{" + std::string(o.name) + "}";
        else out += o.name;
        if (o.has(OperandAccept::Pair)) out += "|" + std::string(o.name2);
        break;
    }
    if (o.optional) out += "]";
  }
  return out;
}

}  // namespace

bool parseSignature(std::string_view text, Signature& out, std::string& error) {
  out = Signature{};
  text = trim(text);
  if (text == "*" || text == "?" || text == "?+") {
    out.form = text == "*" ? SignatureForm::FreeNoDefs : text == "?" ? SignatureForm::FreeFirstMaybeDef : SignatureForm::FreeFirstReadWrite;
    out.fixedDefs = text == "*" ? 0 : 1;
    return true;
  }
  out.form = SignatureForm::Shapes;
  for (std::string_view part : split(text, ';')) {
    OperandShape shape;
    if (!parseShape(part, shape, error)) return false;
    for (size_t k = 0; k < shape.ops.size() && k < 64; ++k)
      if (shape.ops[k].role == OperandRole::Label) out.labelPositions |= uint64_t{1} << k;
    out.shapes.push_back(std::move(shape));
  }
  out.fixedDefs = out.shapes.front().numDefs;
  for (const OperandShape& s : out.shapes)
    if (s.numDefs != out.fixedDefs) out.fixedDefs = Signature::kDefsVary;
  return true;
}

std::atomic<const Signature*> gSignatureTable{nullptr};

const Signature& signatureOfSlow(Opcode op) {
  static const SignatureTable* const table = [] {  // lives as long as the program
    const SignatureTable* t = new SignatureTable();
    gSignatureTable.store(t->byOpcode.data(), std::memory_order_release);
    return t;
  }();
  return table->byOpcode[static_cast<size_t>(op)];
}

std::vector<const OperandShape*> applicableShapes(const Instruction& inst) {
  const Signature& sig = signatureOf(inst.opcode());
  std::vector<const OperandShape*> conditional, otherwise;
  for (const OperandShape& s : sig.shapes) {
    if (s.when.empty()) otherwise.push_back(&s);
    else if (conditionHolds(s, inst)) conditional.push_back(&s);
  }
  return conditional.empty() ? otherwise : conditional;
}

const OperandShape* firstApplicableShape(const Instruction& inst) {
  const OperandShape* unconditional = nullptr;
  for (const OperandShape& s : signatureOf(inst.opcode()).shapes) {
    if (!s.when.empty() && conditionHolds(s, inst)) return &s;
    if (s.when.empty() && !unconditional) unconditional = &s;
  }
  return unconditional;
}

const OperandShape* selectShape(const Instruction& inst) {
  const Signature& sig = signatureOf(inst.opcode());
  if (sig.isFree()) return nullptr;
  uint32_t n = inst.numOperands();
  // Fast path: one shape.
  if (sig.shapes.size() == 1) {
    const OperandShape& s = sig.shapes.front();
    return n >= s.minOps && n <= s.ops.size() ? &s : nullptr;
  }
  // The first of applicableShapes(inst) that takes n operands, without building the list.
  bool conditional = false;
  for (const OperandShape& s : sig.shapes) conditional |= !s.when.empty() && conditionHolds(s, inst);
  for (const OperandShape& s : sig.shapes)
    if ((conditional ? !s.when.empty() && conditionHolds(s, inst) : s.when.empty()) && n >= s.minOps && n <= s.ops.size())
      return &s;
  return nullptr;
}

int operandIndexOf(const Instruction& inst, OperandRole role) {
  const OperandShape* s = selectShape(inst);
  if (!s) return -1;
  for (size_t k = 0; k < s->ops.size() && k < inst.numOperands(); ++k)
    if (s->ops[k].role == role) return static_cast<int>(k);
  return -1;
}

const Operand* operandWithRole(const Instruction& inst, OperandRole role) {
  int k = operandIndexOf(inst, role);
  if (k < 0) return nullptr;
  const Operand& o = inst.operand(static_cast<uint32_t>(k));
  OperandKind want = role == OperandRole::Address ? OperandKind::Address
                     : role == OperandRole::Label ? OperandKind::Label
                     : role == OperandRole::Table ? OperandKind::Symbol
                                                  : o.kind;
  return o.kind == want ? &o : nullptr;
}

const Operand* callTarget(const Instruction& call) {
  for (const Operand& o : call.operands())
    if (o.kind == OperandKind::Symbol || o.kind == OperandKind::Reg) return &o;
  return nullptr;
}

ScalarType resolveType(TypeRule r, const Instruction& inst) {
  switch (r) {
    case TypeRule::Any: return ScalarType::None;
    case TypeRule::T: return inst.type(0);
    case TypeRule::T2: return inst.type(1);
    case TypeRule::Wide: {
      ScalarType t = inst.type(0);
      if (!inst.has(Mod::Wide)) return t;
      switch (t) {
        case ScalarType::S16: return ScalarType::S32;
        case ScalarType::S32: return ScalarType::S64;
        case ScalarType::U16: return ScalarType::U32;
        case ScalarType::U32: return ScalarType::U64;
        default: return ScalarType::None;
      }
    }
    case TypeRule::Addr: return ScalarType::U64;
    case TypeRule::Pred: return ScalarType::Pred;
    case TypeRule::B16: return ScalarType::B16;
    case TypeRule::B32: return ScalarType::B32;
    case TypeRule::U32: return ScalarType::U32;
    case TypeRule::S32: return ScalarType::S32;
    case TypeRule::B64: return ScalarType::B64;
    case TypeRule::U64: return ScalarType::U64;
  }
  return ScalarType::None;
}

std::string describeShapes(const Instruction& inst) {
  std::string out;
  for (const OperandShape* s : applicableShapes(inst)) {
    if (!out.empty()) out += "' or '";
    out += shapeText(inst.info().name, *s);
  }
  return "'" + out + "'";
}

std::string describeTypeClasses(const OperandShape& shape) {
  std::string out;
  for (const TypeClassName& n : kTypeClassNames)
    if (shape.typeClasses == 0 ? shape.types == 0 : shape.allowsClass(n.cls)) out += (out.empty() ? "" : ", ") + std::string(n.prefix);
  for (unsigned t = 0; t < 64; ++t)
    if ((shape.types >> t) & 1) out += (out.empty() ? "" : ", ") + std::string(typeName(static_cast<ScalarType>(t)));
  return out;
}

}  // namespace ptxopt
