#include "ptxopt/passes/Pass.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "ptxopt/ir/Module.h"

namespace ptxopt {

bool parseKnobValue(const KnobSpec& spec, std::string_view text, std::string& error) {
  switch (spec.type) {
    case KnobType::Int: {
      int64_t v;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size() || text.empty()) {
        error = "expected an integer, found '" + std::string(text) + "'";
        return false;
      }
      return true;
    }
    case KnobType::Bool:
      if (text == "true" || text == "false" || text == "1" || text == "0") return true;
      error = "expected true or false, found '" + std::string(text) + "'";
      return false;
    case KnobType::String: return true;
    case KnobType::Choice: {
      for (std::string_view w : knobChoices(spec))
        if (w == text) return true;
      error = "expected one of " + std::string(spec.choices) + ", found '" + std::string(text) + "'";
      return false;
    }
    case KnobType::Float: {
      double v;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size() || text.empty()) {
        error = "expected a number, found '" + std::string(text) + "'";
        return false;
      }
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> knobChoices(const KnobSpec& spec) {
  std::vector<std::string_view> words;
  for (size_t at = 0; at < spec.choices.size();) {
    size_t sp = std::min(spec.choices.find(' ', at), spec.choices.size());
    if (sp > at) words.push_back(spec.choices.substr(at, sp - at));
    at = sp + 1;
  }
  return words;
}

KnobValues::KnobValues(const std::vector<KnobSpec>& specs, const std::map<std::string, std::string>& overrides) {
  for (const KnobSpec& k : specs) {
    auto it = overrides.find(std::string(k.name));
    values_[std::string(k.name)] = it != overrides.end() ? it->second : std::string(k.defaultValue);
  }
}

const std::string& KnobValues::raw(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("a pass read knob '" + std::string(name) + "' it does not declare");
  return it->second;
}

int64_t KnobValues::getInt(std::string_view name) const {
  const std::string& s = raw(name);
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool KnobValues::getBool(std::string_view name) const {
  const std::string& s = raw(name);
  return s == "true" || s == "1";
}

double KnobValues::getFloat(std::string_view name) const {
  const std::string& s = raw(name);
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

const BranchCounts* PassContext::branchCounts(const Instruction& branch) const {
  if (!branchCounts_) return nullptr;
  auto it = branchCounts_->find(&branch);
  return it == branchCounts_->end() ? nullptr : it->second;
}

void PassContext::remark(const BasicBlock* block, std::string decision, std::string reason,
                         std::vector<std::pair<std::string, double>> figures) {
  if (!remarksWanted_) return;
  Remark r;
  r.pass = std::string(pass_);
  r.function = std::string(function_.name());
  r.block = block ? block->name() : std::string();
  r.decision = std::move(decision);
  r.reason = std::move(reason);
  r.figures = std::move(figures);
  remarks_.push_back(std::move(r));
}

bool scopeSpansBlocks(const Function& f) {
  int open = 0;
  for (const BasicBlock* b : f.blocks()) {
    if (open > 0 && b->hasLabel()) return true;  // a label inside the braces
    for (const Instruction* i : b->insts()) {
      if (i->is(Opcode::ScopeBegin)) ++open;
      else if (i->is(Opcode::ScopeEnd)) --open;
      else if (open > 0 && i == b->terminator() && i->info().is(OpFlag::Branch)) return true;  // a branch inside them
    }
  }
  return false;
}

}  // namespace ptxopt
