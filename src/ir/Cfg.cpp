#include "ptxopt/ir/Cfg.h"

#include <algorithm>
#include <cctype>

#include "ptxopt/ir/Module.h"

namespace ptxopt {

BranchTargetTables collectBranchTargetTables(const Function& f) {
  BranchTargetTables tables;
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts())
      if (i->is(Opcode::BranchTargets)) tables.emplace(i->payload(), i);
  return tables;
}

const Operand* braTarget(const Instruction& bra) {
  if (!bra.is(Opcode::Bra)) return nullptr;
  for (const Operand& o : bra.operands())
    if (o.isLabel()) return &o;
  return nullptr;
}
Operand* braTarget(Instruction& bra) { return const_cast<Operand*>(braTarget(static_cast<const Instruction&>(bra))); }

Instruction* conditionalBranch(BasicBlock& b) {
  Instruction* t = b.terminator();
  if (!t || !t->is(Opcode::Bra) || !t->hasGuard() || b.insts().back() != t || b.succs().size() != 2) return nullptr;
  return t;
}

std::vector<uint32_t> branchTargetLabels(const Instruction& term, const BranchTargetTables& tables) {
  std::vector<uint32_t> out;
  if (const Operand* target = braTarget(term)) {
    out.push_back(target->id);
  } else if (term.is(Opcode::BrxIdx)) {
    if (const Operand* table = operandWithRole(term, OperandRole::Table)) {
      auto it = tables.find(table->id);
      if (it != tables.end())
        for (const Operand& o : it->second->operands())
          if (o.isLabel()) out.push_back(o.id);
    }
  }
  return out;
}

namespace {

// Appends the successors of the block at `layoutIndex` to `edges`: the label of a `bra`, the
// entries of a `brx.idx`'s table, then the next block when the block may fall through.
void appendSuccessors(const Function& f, size_t layoutIndex, const BranchTargetTables& tables, std::vector<Edge>& edges) {
  const BasicBlock* b = f.blocks()[layoutIndex];
  BasicBlock* next = layoutIndex + 1 < f.blocks().size() ? f.blocks()[layoutIndex + 1] : nullptr;
  const Instruction* term = b->terminator();
  bool fallsThrough = true;
  if (term) {
    fallsThrough = term->hasGuard();
    auto add = [&](uint32_t l, EdgeKind kind, uint32_t index) {
      BasicBlock* target = l < f.labels().size() ? f.labelBlock(l) : nullptr;
      if (target) edges.push_back(Edge{target, kind, index});
    };
    if (const Operand* target = braTarget(*term)) {
      add(target->id, EdgeKind::Taken, 0);
    } else if (term->is(Opcode::BrxIdx)) {
      if (const Operand* table = operandWithRole(*term, OperandRole::Table)) {
        auto it = tables.find(table->id);
        if (it != tables.end()) {
          uint32_t index = 0;
          for (const Operand& o : it->second->operands())
            if (o.isLabel()) add(o.id, EdgeKind::Indexed, index++);
        }
      }
    }
  }
  if (fallsThrough && next) edges.push_back(Edge{next, EdgeKind::FallThrough, 0});
}

}  // namespace

std::vector<Edge> computeSuccessors(const Function& f, size_t layoutIndex, const BranchTargetTables& tables) {
  std::vector<Edge> edges;
  appendSuccessors(f, layoutIndex, tables, edges);
  return edges;
}

void updateSuccessors(Function& f, size_t layoutIndex, const BranchTargetTables& tables) {
  BasicBlock* b = f.blocks()[layoutIndex];
  for (const Edge& e : b->succs()) {
    auto& preds = e.to->preds();
    for (auto it = preds.begin(); it != preds.end(); ++it)
      if (*it == b) {
        preds.erase(it);
        break;
      }
  }
  b->succs() = computeSuccessors(f, layoutIndex, tables);
  for (const Edge& e : b->succs()) e.to->preds().push_back(b);
}

void buildCfg(Function& f) {
  // Only a `brx.idx` reads the tables (most functions have none): they are not looked for
  // among all the instructions otherwise.
  bool indexed = false;
  for (const BasicBlock* b : f.blocks())
    if (const Instruction* t = b->terminator(); t && t->is(Opcode::BrxIdx)) indexed = true;
  BranchTargetTables tables = indexed ? collectBranchTargetTables(f) : BranchTargetTables();
  for (BasicBlock* b : f.blocks()) {
    b->succs().clear();  // (the vectors keep their storage for the edges to come)
    b->preds().clear();
  }
  for (size_t i = 0; i < f.blocks().size(); ++i) {
    BasicBlock* b = f.blocks()[i];
    appendSuccessors(f, i, tables, b->succs());
    for (const Edge& e : b->succs()) e.to->preds().push_back(b);
  }
}

void updateAfterCollapse(Function& f, BasicBlock* b, const std::vector<BasicBlock*>& gone) {
  const auto& blocks = f.blocks();
  std::vector<uint32_t> position(f.blockIdBound(), UINT32_MAX);
  for (uint32_t k = 0; k < blocks.size(); ++k) position[blocks[k]->id()] = k;
  // The blocks whose predecessors change: those b and the gone blocks led to, and those b leads to now.
  std::vector<BasicBlock*> affected;
  auto note = [&](const std::vector<Edge>& edges) {
    for (const Edge& e : edges)
      if (std::find(affected.begin(), affected.end(), e.to) == affected.end()) affected.push_back(e.to);
  };
  note(b->succs());
  for (BasicBlock* g : gone) note(g->succs());
  b->succs().clear();
  appendSuccessors(f, position[b->id()], BranchTargetTables(), b->succs());
  note(b->succs());
  for (BasicBlock* s : affected) {
    if (position[s->id()] == UINT32_MAX) continue;  // gone itself
    auto& preds = s->preds();
    std::erase_if(preds, [&](BasicBlock* p) { return p == b || position[p->id()] == UINT32_MAX; });
    size_t edges = 0;
    for (const Edge& e : b->succs()) edges += e.to == s;
    if (!edges) continue;
    auto at = std::find_if(preds.begin(), preds.end(), [&](BasicBlock* p) { return position[p->id()] > position[b->id()]; });
    preds.insert(at, edges, b);
  }
  for (BasicBlock* g : gone) {
    g->succs().clear();
    g->preds().clear();
  }
}

std::unordered_set<std::string_view> pinnedLabelNames(const Function& f, const BranchTargetTables& tables) {
  std::unordered_set<std::string_view> names;
  const Module& m = *f.parent();
  auto isName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; };
  for (const Section& s : m.sections())
    for (uint32_t line : s.lines) {
      std::string_view t = m.str(line);
      size_t k = 0;
      while (k < t.size()) {
        if (!isName(t[k])) {
          ++k;
          continue;
        }
        size_t start = k;
        while (k < t.size() && isName(t[k])) ++k;
        names.insert(t.substr(start, k - start));
      }
    }
  for (const auto& [name, table] : tables)
    for (const Operand& o : table->operands())
      if (o.isLabel()) names.insert(f.labelName(o.id));
  return names;
}

}  // namespace ptxopt
