#include "ptxopt/ir/Function.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <unordered_set>

#include "ptxopt/ir/Module.h"

namespace ptxopt {

std::string BasicBlock::name() const {
  if (hasLabel()) return std::string(parent_->labelName(label_));
  return "<bb " + std::to_string(id_) + ">";
}

Instruction* BasicBlock::terminator() const {
  for (auto it = insts_.rbegin(); it != insts_.rend(); ++it)
    if (!(*it)->info().isPseudo()) return (*it)->info().isTerminator() ? *it : nullptr;
  return nullptr;
}

std::string_view Function::name() const { return parent_->str(name_); }

std::string Function::regName(RegId r) const {
  const RegInfo& info = regs_[r];
  std::string out(parent_->str(info.name));
  if (info.ranged) out += std::to_string(info.index);
  return out;
}

LaunchBounds Function::launchBounds() const {
  LaunchBounds b;
  for (const FunctionDirective& d : directives) {
    std::string_view name = parent_->str(d.name);
    if (name != ".reqntid" && name != ".maxntid") continue;
    std::string text(parent_->str(d.text));
    std::array<uint64_t, 3> dims{1, 1, 1};
    size_t k = 0;
    for (size_t pos = 0; pos < text.size() && k < 3; ++k) {
      dims[k] = std::strtoull(text.c_str() + pos, nullptr, 0);  // PTX integers: decimal, 0x hex, 0 octal
      size_t comma = text.find(',', pos);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    (name == ".reqntid" ? b.reqntid : b.maxntid) = dims;
  }
  return b;
}

std::string_view Function::labelName(uint32_t label) const { return parent_->str(labels_[label].name); }

BasicBlock* Function::createBlock() {
  return &blockPool_.emplace_back(this, static_cast<uint32_t>(blockPool_.size()));
}

Instruction* Function::createInstruction(Opcode op) { return &instPool_.emplace_back(op); }

Instruction* Function::cloneInstruction(const Instruction& inst) {
  Instruction* copy = &instPool_.emplace_back(inst);
  copy->setParent(nullptr);
  return copy;
}

namespace {

// Whether `name` is `prefix` followed by the decimal spelling of a number (no sign, no leading
// zero: what std::to_string writes), and that number.
std::optional<uint32_t> numberAfter(std::string_view prefix, std::string_view name) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  uint32_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

// Whether a name that begins with `start` may begin with `prefix` (one is a prefix of the other).
bool mayShare(std::string_view start, std::string_view prefix) {
  size_t k = std::min(start.size(), prefix.size());
  return start.substr(0, k) == prefix.substr(0, k);
}

}  // namespace

void Function::updateTakenNumbers(std::string_view prefix, TakenNumbers& t) const {
  const Module& m = *parent_;
  auto note = [&](std::string_view name) {
    if (std::optional<uint32_t> n = numberAfter(prefix, name)) t.numbers.insert(*n);
  };
  for (; t.regs < regs_.size(); ++t.regs) {
    const RegInfo& r = regs_[t.regs];
    std::string_view start = m.str(r.name);
    if (!mayShare(start, prefix)) continue;
    if (r.ranged) note(regName(static_cast<RegId>(t.regs)));
    else note(start);
  }
  for (; t.labels < labels_.size(); ++t.labels) note(m.str(labels_[t.labels].name));
  for (; t.decls < decls_.size(); ++t.decls)
    if (decls_[t.decls].kind == Decl::Kind::Var) note(m.str(decls_[t.decls].var.name));
  for (; t.globals < m.globals().size(); ++t.globals) note(m.str(m.globals()[t.globals].name));
  for (; t.tables < taken_.tables.size(); ++t.tables) note(taken_.tables[t.tables]);
  for (; t.handedOut < taken_.handedOut.size(); ++t.handedOut) note(taken_.handedOut[t.handedOut]);
}

std::string Function::freshName(std::string_view prefix) const {
  // The tables only grow while passes run; should one have shrunk, gather everything again.
  for (const auto& [p, t] : taken_.byPrefix)
    if (regs_.size() < t.regs || labels_.size() < t.labels || decls_.size() < t.decls ||
        parent_->globals().size() < t.globals) {
      taken_ = TakenNames{};
      break;
    }
  if (!taken_.tablesRead) {
    for (const BasicBlock* b : blocks_)
      for (const Instruction* i : b->insts())
        if (i->is(Opcode::BranchTargets) || i->is(Opcode::CallTargets) || i->is(Opcode::CallPrototype))
          taken_.tables.emplace_back(parent_->str(i->payload()));
    taken_.tablesRead = true;
  }
  TakenNumbers& t = taken_.byPrefix[std::string(prefix)];
  updateTakenNumbers(prefix, t);
  // Names PTX gives special registers (%pm0, %envreg3, %smid) are not handed out: ptxas 13.0
  // and the front end both accept a declaration that shadows one, but output that reads like a
  // performance counter is a trap for the next reader and for older tools.
  auto special = [](std::string_view name) {
    if (lookupSpecialReg(name)) return true;
    size_t k = name.find_last_not_of("0123456789");
    if (k == std::string_view::npos || k + 1 == name.size()) return false;
    std::optional<SpecialReg> r = lookupSpecialReg(name.substr(0, k + 1));
    if (!r || specialRegInfo(*r).shape != SpecialShape::Numbered) return false;
    uint32_t number = 0;
    auto [end, ec] = std::from_chars(name.data() + k + 1, name.data() + name.size(), number);
    return ec != std::errc() || number <= kMaxSpecialRegNumber;
  };
  for (uint32_t n = t.next;; ++n) {
    if (t.numbers.count(n)) continue;
    std::string name = std::string(prefix) + std::to_string(n);
    if (special(name)) continue;
    t.next = n + 1;
    t.numbers.insert(n);
    taken_.handedOut.push_back(name);
    return name;
  }
}

uint32_t Function::addLabel(BasicBlock* b, std::string_view prefix) {
  LabelInfo l;
  l.name = parent_->intern(freshName(prefix));
  l.block = b;
  labels_.push_back(l);
  uint32_t index = static_cast<uint32_t>(labels_.size() - 1);
  b->setLabel(index);
  return index;
}

RegId Function::addRegister(ScalarType type, std::string_view prefix) {
  Module& m = *parent_;
  std::string name = freshName(prefix);
  RegId id = static_cast<RegId>(regs_.size());
  // Share the declaration of an earlier register with this prefix and type.
  uint32_t declIndex = UINT32_MAX;
  for (uint32_t k = 0; k < decls_.size(); ++k) {
    const Decl& d = decls_[k];
    if (d.kind != Decl::Kind::Reg || d.scope != 0 || d.type != type || d.vec || d.regs.empty()) continue;
    std::string_view first = m.str(d.regs.front().name);
    if (d.regs.front().count == 0 && first.substr(0, prefix.size()) == prefix) declIndex = k;
  }
  if (declIndex == UINT32_MAX) {
    Decl d;
    d.kind = Decl::Kind::Reg;
    d.type = type;
    decls_.push_back(std::move(d));
    declIndex = static_cast<uint32_t>(decls_.size() - 1);
  }
  RegInfo info;
  info.name = m.intern(name);
  info.type = type;
  info.decl = declIndex;
  regs_.push_back(info);
  decls_[declIndex].regs.push_back(RegDeclEntry{info.name, 0, id});
  return id;
}

size_t Function::instructionCount() const {
  size_t n = 0;
  for (const BasicBlock* b : blocks_)
    for (const Instruction* i : b->insts())
      if (!i->info().isPseudo()) ++n;
  return n;
}

}  // namespace ptxopt
