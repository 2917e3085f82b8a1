#include "ptxopt/ir/Function.h"

#include <cstdlib>

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

size_t Function::instructionCount() const {
  size_t n = 0;
  for (const BasicBlock* b : blocks_)
    for (const Instruction* i : b->insts())
      if (!i->info().isPseudo()) ++n;
  return n;
}

}  // namespace ptxopt
