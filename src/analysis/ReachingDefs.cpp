#include "ptxopt/analysis/ReachingDefs.h"

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

std::span<const uint32_t> ReachingDefs::reaching(const Instruction* inst, RegId reg) const {
  auto it = usesOfInst_.find(inst);
  if (it == usesOfInst_.end()) return {};
  for (uint32_t k = it->second.first; k < it->second.first + it->second.second; ++k)
    if (uses_[k].reg == reg) return {reachingFlat_.data() + uses_[k].first, uses_[k].count};
  return {};
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

  // Bits only for the definitions of registers written more than once.
  std::vector<int32_t> bitOf(rd.defs_.size(), -1);
  uint32_t bits = 0;
  for (const auto& ds : rd.defsOfReg_)
    if (ds.size() > 1)
      for (uint32_t d : ds) bitOf[d] = static_cast<int32_t>(bits++);

  auto applyDefs = [&](const Instruction* inst, BitVector& cur) {
    auto it = defsOfInst.find(inst);
    if (it == defsOfInst.end()) return;
    for (uint32_t d = it->second.first; d < it->second.first + it->second.second; ++d) {
      if (bitOf[d] < 0) continue;
      const DefSite& s = rd.defs_[d];
      if (s.kills)
        for (uint32_t other : rd.defsOfReg_[s.reg]) cur.reset(static_cast<size_t>(bitOf[other]));
      cur.set(static_cast<size_t>(bitOf[d]));
    }
  };

  const uint32_t nb = f.blockIdBound();
  std::vector<BitVector> in(nb, BitVector(bits)), out(nb, BitVector(bits));
  if (bits) {
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
        ReachingDefs::UseRange u{r, static_cast<uint32_t>(rd.reachingFlat_.size()), 0};
        for (uint32_t d : rd.defsOfReg_[r]) {
          if (bitOf[d] >= 0 && !cur.test(static_cast<size_t>(bitOf[d]))) continue;
          rd.reachingFlat_.push_back(d);
          rd.usesOfDef_[d].push_back(UseSite{inst, r});
          ++u.count;
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
