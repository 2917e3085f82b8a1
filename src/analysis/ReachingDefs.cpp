#include "ptxopt/analysis/ReachingDefs.h"

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

const ReachingDefs::UseRange* ReachingDefs::findUse(const Instruction* inst, RegId reg) const {
  auto it = usesOfInst_.find(inst);
  if (it == usesOfInst_.end()) return nullptr;
  for (uint32_t k = it->second.first; k < it->second.first + it->second.second; ++k)
    if (uses_[k].reg == reg) return &uses_[k];
  return nullptr;
}

std::span<const uint32_t> ReachingDefs::reaching(const Instruction* inst, RegId reg) const {
  const UseRange* u = findUse(inst, reg);
  if (!u) return {};
  return {reachingFlat_.data() + u->first, u->count};
}

bool ReachingDefs::entryValueReaches(const Instruction* inst, RegId reg) const {
  const UseRange* u = findUse(inst, reg);
  return !u || u->entry;
}

ReachingDefs ReachingDefsAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  ReachingDefs rd;
  rd.defsOfReg_.assign(f.regs().size(), {});

  // Definition sites, and which instruction defines what.
  std::unordered_map<const Instruction*, std::pair<uint32_t, uint32_t>> defsOfInst;
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* inst : b->insts()) {
      if (inst->info().isPseudo()) continue;
      uint32_t first = static_cast<uint32_t>(rd.defs_.size());
      std::vector<RegId> killed;
      forEachKilledReg(*inst, [&](RegId r) { killed.push_back(r); });
      inst->forEachDefReg([&](RegId r) {
        bool kills = false;
        for (RegId k : killed) kills |= k == r;
        rd.defsOfReg_[r].push_back(static_cast<uint32_t>(rd.defs_.size()));
        rd.defs_.push_back(DefSite{inst, r, kills});
      });
      if (rd.defs_.size() > first) defsOfInst.emplace(inst, std::make_pair(first, static_cast<uint32_t>(rd.defs_.size()) - first));
    }
  rd.usesOfDef_.assign(rd.defs_.size(), {});

  // Bits only for the definitions of registers written more than once, and one bit per such
  // register for its entry value.
  std::vector<int32_t> bitOf(rd.defs_.size(), -1);
  std::vector<int32_t> entryBit(f.regs().size(), -1);
  uint32_t bits = 0;
  for (RegId r = 0; r < rd.defsOfReg_.size(); ++r)
    if (rd.defsOfReg_[r].size() > 1) {
      entryBit[r] = static_cast<int32_t>(bits++);
      for (uint32_t d : rd.defsOfReg_[r]) bitOf[d] = static_cast<int32_t>(bits++);
    }

  auto applyDefs = [&](const Instruction* inst, BitVector& cur) {
    auto it = defsOfInst.find(inst);
    if (it == defsOfInst.end()) return;
    for (uint32_t d = it->second.first; d < it->second.first + it->second.second; ++d) {
      if (bitOf[d] < 0) continue;
      const DefSite& s = rd.defs_[d];
      if (s.kills) {
        for (uint32_t other : rd.defsOfReg_[s.reg]) cur.reset(static_cast<size_t>(bitOf[other]));
        cur.reset(static_cast<size_t>(entryBit[s.reg]));
      }
      cur.set(static_cast<size_t>(bitOf[d]));
    }
  };

  const uint32_t nb = f.blockIdBound();
  std::vector<BitVector> in(nb, BitVector(bits)), out(nb, BitVector(bits));
  if (bits && f.entry()) {
    for (int32_t e : entryBit)
      if (e >= 0) in[f.entry()->id()].set(static_cast<size_t>(e));
    std::vector<const BasicBlock*> order(cfg.rpo.begin(), cfg.rpo.end());
    order.insert(order.end(), cfg.unreachable.begin(), cfg.unreachable.end());
    bool changed = true;
    BitVector cur(bits);
    while (changed) {
      changed = false;
      for (const BasicBlock* b : order) {
        BitVector& bin = in[b->id()];
        for (const BasicBlock* p : b->preds()) bin.unite(out[p->id()]);
        cur = bin;
        for (const Instruction* inst : b->insts())
          if (!inst->info().isPseudo()) applyDefs(inst, cur);
        if (cur != out[b->id()]) {
          out[b->id()] = cur;
          changed = true;
        }
      }
    }
  }

  // Single-definition registers: where the definition stands, and which blocks a path from
  // it reaches (computed only for definitions with a read they do not dominate).
  const DomTree* dom = cfg.size() ? &am.get<DominatorAnalysis>().tree : nullptr;
  std::unordered_map<const Instruction*, std::pair<const BasicBlock*, uint32_t>> position;
  for (const BasicBlock* b : f.blocks())
    for (uint32_t k = 0; k < b->insts().size(); ++k) position[b->insts()[k]] = {b, k};
  std::unordered_map<uint32_t, std::vector<uint8_t>> reachFrom;
  auto blocksAfter = [&](uint32_t d) -> const std::vector<uint8_t>& {
    auto it = reachFrom.find(d);
    if (it != reachFrom.end()) return it->second;
    std::vector<uint8_t> seen(nb, 0);
    std::vector<const BasicBlock*> work;
    for (const Edge& e : position[rd.defs_[d].inst].first->succs())
      if (!seen[e.to->id()]) {
        seen[e.to->id()] = 1;
        work.push_back(e.to);
      }
    while (!work.empty()) {
      const BasicBlock* x = work.back();
      work.pop_back();
      for (const Edge& e : x->succs())
        if (!seen[e.to->id()]) {
          seen[e.to->id()] = 1;
          work.push_back(e.to);
        }
    }
    return reachFrom.emplace(d, std::move(seen)).first->second;
  };
  // Does the (single) definition `d` surely happen before `use` on every path from the entry?
  auto dominatesUse = [&](uint32_t d, const Instruction* use) {
    auto [db, dk] = position[rd.defs_[d].inst];
    auto [ub, uk] = position[use];
    if (db == ub) return dk < uk;
    int32_t a = cfg.index(db), b = cfg.index(ub);
    return dom && a >= 0 && b >= 0 && dom->dominates(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
  };
  auto reachesUse = [&](uint32_t d, const Instruction* use) {
    auto [db, dk] = position[rd.defs_[d].inst];
    auto [ub, uk] = position[use];
    if (db == ub && dk < uk) return true;
    return blocksAfter(d)[ub->id()] != 0;
  };

  // Record, for every read, the definitions that reach it.
  BitVector cur(bits);
  for (const BasicBlock* b : f.blocks()) {
    cur = in[b->id()];
    for (const Instruction* inst : b->insts()) {
      if (inst->info().isPseudo()) continue;
      uint32_t firstUse = static_cast<uint32_t>(rd.uses_.size());
      inst->forEachUseReg([&](RegId r) {
        for (uint32_t k = firstUse; k < rd.uses_.size(); ++k)
          if (rd.uses_[k].reg == r) return;  // each register once per instruction
        ReachingDefs::UseRange u{r, static_cast<uint32_t>(rd.reachingFlat_.size()), 0, true};
        const auto& defs = rd.defsOfReg_[r];
        auto add = [&](uint32_t d) {
          rd.reachingFlat_.push_back(d);
          rd.usesOfDef_[d].push_back(UseSite{inst, r});
          ++u.count;
        };
        if (defs.size() == 1) {
          uint32_t d = defs[0];
          bool dominated = dominatesUse(d, inst) && rd.defs_[d].kills;
          u.entry = !dominated;
          if (dominated || reachesUse(d, inst)) add(d);
        } else if (defs.size() > 1) {
          u.entry = cur.test(static_cast<size_t>(entryBit[r]));
          for (uint32_t d : defs)
            if (cur.test(static_cast<size_t>(bitOf[d]))) add(d);
        }
        rd.uses_.push_back(u);
      });
      if (rd.uses_.size() > firstUse)
        rd.usesOfInst_.emplace(inst, std::make_pair(firstUse, static_cast<uint32_t>(rd.uses_.size()) - firstUse));
      applyDefs(inst, cur);
    }
  }
  return rd;
}

}  // namespace ptxopt
