// switch-opt's value-table plan (SwitchValueTable.h).
#include "SwitchValueTable.h"

#include <algorithm>
#include <set>

#include "CaseConstants.h"

namespace ptxopt::switchopt {

namespace {

// The constants block `t` assigns and the block it then goes to; nullopt when `t` does
// anything else.
std::optional<std::pair<std::map<RegId, std::pair<uint64_t, unsigned>>, BasicBlock*>> constantsBlock(const SwitchTreeReader& reader, BasicBlock* t) {
  std::map<RegId, std::pair<uint64_t, unsigned>> values;
  for (Instruction* i : t->insts()) {
    if (i->info().isPseudo()) continue;
    if (i == t->terminator() && i->is(Opcode::Bra) && !i->hasGuard()) continue;
    std::optional<std::pair<uint64_t, unsigned>> c = constantMov(*i);
    if (!c) return std::nullopt;
    values[static_cast<RegId>(i->operand(0).id)] = *c;
  }
  if (values.empty() || t->succs().size() != 1) return std::nullopt;
  return std::make_pair(values, reader.skipJumps(t->succs()[0].to));
}

}  // namespace

std::optional<ValueTable> planValueTable(const Function& f, const SwitchTreeReader& reader, BasicBlock* rootBlock, const SwitchNode& root,
                                         const NodesByBlock& tests, const std::map<int64_t, BasicBlock*>& cases,
                                         BasicBlock* dflt, int64_t first, int64_t last, int64_t maxTableBytes, std::string& why) {
  if (f.parent()->addressSize != 64) {
    why = "the module's addresses are not 64-bit";
    return std::nullopt;
  }
  // Each target's constants, and the join block.
  BlockSet targets{dflt};
  for (auto& [v, b] : cases) targets.insert(b);
  BlockMap<std::map<RegId, std::pair<uint64_t, unsigned>>> assigns;
  std::vector<BasicBlock*> plain;  // targets that assign nothing
  ValueTable vt;
  for (BasicBlock* t : targets) {
    auto c = constantsBlock(reader, t);
    if (!c) {
      plain.push_back(t);
      continue;
    }
    if (vt.join && vt.join != c->second) {
      why = "the cases go on to different blocks";
      return std::nullopt;
    }
    vt.join = c->second;
    assigns[t] = std::move(c->first);
  }
  if (!vt.join) {
    why = "no case only assigns constants";
    return std::nullopt;
  }
  if (vt.join == rootBlock || tests.count(vt.join)) {
    why = "the cases go back into the switch";
    return std::nullopt;
  }
  for (BasicBlock* t : plain) {
    if (t == vt.join) continue;
    if (t != dflt) {
      why = "a case does more than assign constants";
      return std::nullopt;
    }
    vt.branchDefault = dflt;  // the default stays a branch; its values are not rows
  }
  // The registers, their sizes, and what the root leaves in them.
  std::map<RegId, unsigned> size;
  for (auto& [t, a] : assigns)
    for (auto& [r, c] : a) {
      auto [it, fresh] = size.emplace(r, c.second);
      if (!fresh && it->second != c.second) {
        why = "a register is assigned with different sizes";
        return std::nullopt;
      }
    }
  std::map<RegId, uint64_t> rootValues;
  for (auto& [r, bytes] : size) {
    auto& insts = rootBlock->insts();
    for (auto it = std::find(insts.begin(), insts.end(), root.setp ? root.setp : root.bra); it != insts.begin();) {
      Instruction* i = *--it;
      bool writes = false;
      RegId reg = r;
      i->forEachDefReg([&](RegId d) { writes |= d == reg; });
      if (!writes) continue;
      if (auto c = constantMov(*i); c && c->second == bytes) rootValues[r] = c->first;
      break;
    }
  }
  auto rowOf = [&](BasicBlock* t, std::map<RegId, uint64_t>& row) {
    auto a = assigns.find(t);
    for (auto& [r, bytes] : size) {
      if (a != assigns.end() && a->second.count(r)) {
        row[r] = a->second.at(r).first;
      } else if (rootValues.count(r)) {
        row[r] = rootValues[r];
      } else {
        why = "a path keeps a register the root does not set to a constant";
        return false;
      }
    }
    return true;
  };
  for (int64_t v = first; v <= last; ++v) {
    auto it = cases.find(v);
    BasicBlock* t = it == cases.end() ? dflt : it->second;
    if (t == vt.branchDefault) {
      why = "a hole reaches a default that does more than assign constants";
      return std::nullopt;
    }
    if (!rowOf(t, vt.rows.emplace_back())) return std::nullopt;
  }
  if (!vt.branchDefault && !rowOf(dflt, vt.rows.emplace_back())) return std::nullopt;
  // Columns: widest first, so that every column is aligned.
  for (auto& [r, bytes] : size) vt.columns.push_back({r, bytes, 0});
  std::stable_sort(vt.columns.begin(), vt.columns.end(), [](const Column& a, const Column& b) { return a.bytes > b.bytes; });
  for (Column& c : vt.columns) {
    c.offset = vt.stride;
    vt.stride += c.bytes;
  }
  unsigned widest = vt.columns.front().bytes;
  vt.stride = (vt.stride + widest - 1) / widest * widest;
  if (uint64_t(vt.stride) * vt.rows.size() > uint64_t(maxTableBytes)) {
    why = "the table would take " + std::to_string(vt.stride * vt.rows.size()) + " bytes, more than max-table-bytes";
    return std::nullopt;
  }
  return vt;
}

}  // namespace ptxopt::switchopt
