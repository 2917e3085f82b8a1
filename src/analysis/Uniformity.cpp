#include "ptxopt/analysis/Uniformity.h"

#include <algorithm>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt {

namespace {

bool isKernelParam(const Function& f, uint32_t name) {
  if (!f.isEntry) return false;
  for (const Variable& p : f.params)
    if (p.name == name) return true;
  return false;
}

bool readsVaryingSpecial(const Instruction& inst) {
  bool varying = false;
  inst.forEachLeaf([&](const Operand& o) {
    if (o.kind == OperandKind::Special && !specialRegInfo(static_cast<SpecialReg>(o.id)).uniform) varying = true;
  });
  return varying;
}

}  // namespace

bool isUniformResult(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::VoteSync:
    case Opcode::Vote:
    case Opcode::ReduxSync:
    case Opcode::Activemask: return true;
    case Opcode::Bar:
    case Opcode::Barrier: return inst.has(Mod::Red);
    default: return false;
  }
}

bool isDivergenceSource(const Function& f, const Instruction& inst) {
  if (readsVaryingSpecial(inst)) return true;
  const OpcodeInfo& info = inst.info();
  if (info.isOpaque()) return true;
  switch (inst.opcode()) {
    case Opcode::Atom:
    case Opcode::ShflSync:
    case Opcode::Shfl:
    case Opcode::Match:
    case Opcode::ElectSync: return true;
    case Opcode::Ld:
    case Opcode::Ldu: {
      StateSpace s = inst.space();
      const Operand& a = inst.operand(1);
      if (isParamSpace(s)) {
        // The kernel's own parameters are uniform; a device function's arguments and call
        // results are not proven so.
        return !(a.kind == OperandKind::Address && a.addressBase() == AddressBase::Symbol && isKernelParam(f, a.id));
      }
      if (s == StateSpace::Const) return false;
      if (inst.is(Opcode::Ldu) && s != StateSpace::Local) return false;
      return true;  // local, global, shared, generic memory
    }
    default: return false;
  }
}

bool UniformityInfo::isDivergentDef(const Instruction* inst) const {
  return std::binary_search(divergentDefs_.begin(), divergentDefs_.end(), inst);
}

bool UniformityInfo::isDivergentAt(const Instruction* inst, RegId r) const {
  const BasicBlock* b = inst->parent();
  BitVector div = divIn_[b->id()];
  for (const Instruction* i : b->insts()) {
    if (i == inst) return div.test(r);
    if (i->info().isPseudo()) continue;
    bool d = isDivergentDef(i);
    if (d)
      i->forEachDefReg([&](RegId x) { div.set(x); });
    else
      forEachKilledReg(*i, [&](RegId x) { div.reset(x); });
  }
  return div.test(r);
}

UniformityInfo UniformityAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();
  const uint32_t nregs = static_cast<uint32_t>(f.regs().size());
  const uint32_t nb = f.blockIdBound();
  const uint32_t n = cfg.size();

  UniformityInfo u;
  u.f_ = &f;
  u.divIn_.assign(nb, BitVector(nregs));
  u.divBranch_.assign(nb, 0);
  u.ever_ = BitVector(nregs);
  std::vector<BitVector> divOut(nb, BitVector(nregs)), joinDiv(nb, BitVector(nregs));
  std::unordered_set<const Instruction*> divDefs;

  // Walks a block from `div` (the divergent registers on entry); records divergent results and
  // returns whether the terminator decides divergently.
  auto transfer = [&](const BasicBlock* b, BitVector& div, bool record) {
    bool branchDivergent = false;
    for (const Instruction* i : b->insts()) {
      const OpcodeInfo& info = i->info();
      if (info.isPseudo()) continue;
      bool guardDiv = i->hasGuard() && div.test(i->guard());
      if (info.isTerminator()) {
        if (i->is(Opcode::BrxIdx) && i->numOperands() && i->operand(0).isReg())
          branchDivergent = guardDiv || div.test(i->operand(0).id);
        else
          branchDivergent = guardDiv;
      }
      if (i->numDefOperands() == 0) continue;
      bool result;
      if (isUniformResult(*i)) {
        result = guardDiv;
      } else {
        result = guardDiv || isDivergenceSource(f, *i);
        if (!result) i->forEachUseReg([&](RegId r) { result = result || div.test(r); });
      }
      if (result) {
        i->forEachDefReg([&](RegId r) { div.set(r); });
        if (record) divDefs.insert(i);
      } else {
        forEachKilledReg(*i, [&](RegId r) { div.reset(r); });
      }
    }
    return branchDivergent;
  };

  std::vector<uint8_t> branchSeen(nb, 0);
  // Per-branch scratch, stamped so that each divergent branch costs the size of its region.
  std::vector<uint32_t> label(n), visitStamp(n, 0), seenStamp(n, 0), work;
  uint32_t stamp = 0, seen = 0;
  for (;;) {
    // Forward dataflow to a fixed point in RPO.
    bool changed = true;
    BitVector cur(nregs);
    while (changed) {
      changed = false;
      for (uint32_t k = 0; k < n; ++k) {
        const BasicBlock* b = cfg.rpo[k];
        BitVector& in = u.divIn_[b->id()];
        in.unite(joinDiv[b->id()]);
        for (uint32_t p : cfg.pred[k]) in.unite(divOut[cfg.rpo[p]->id()]);
        cur = in;
        u.divBranch_[b->id()] = transfer(b, cur, false);
        if (cur != divOut[b->id()]) {
          divOut[b->id()] = cur;
          changed = true;
        }
      }
    }
    // Sync dependence of branches that became divergent: the blocks that paths from two
    // different successors reach, before the immediate post-dominator or at it.
    bool grew = false;
    for (uint32_t k = 0; k < n; ++k) {
      const BasicBlock* b = cfg.rpo[k];
      if (!u.divBranch_[b->id()] || branchSeen[b->id()] || cfg.succ[k].size() < 2) continue;
      branchSeen[b->id()] = 1;
      uint32_t post = pdt.ipdom(k);
      ++stamp;
      std::vector<uint32_t> region, joins;
      for (uint32_t si = 0; si < cfg.succ[k].size(); ++si) {
        ++seen;
        uint32_t s = cfg.succ[k][si];
        work.assign(1, s);
        seenStamp[s] = seen;
        while (!work.empty()) {
          uint32_t x = work.back();
          work.pop_back();
          if (visitStamp[x] != stamp) {
            visitStamp[x] = stamp;
            label[x] = si;
            if (x != post) region.push_back(x);
          } else if (label[x] != si && label[x] != UINT32_MAX) {
            label[x] = UINT32_MAX;  // reached from two successors: a join
            joins.push_back(x);
          }
          if (x == post) continue;
          for (uint32_t y : cfg.succ[x])
            if (seenStamp[y] != seen) {
              seenStamp[y] = seen;
              work.push_back(y);
            }
        }
      }
      BitVector defs(nregs);
      for (uint32_t x : region)
        for (const Instruction* i : cfg.rpo[x]->insts())
          if (!i->info().isPseudo()) i->forEachDefReg([&](RegId r) { defs.set(r); });
      for (uint32_t x : joins) grew |= joinDiv[cfg.rpo[x]->id()].unite(defs);
    }
    if (!grew) break;
  }
  // Final walk: record divergent definitions and everything ever divergent.
  BitVector cur(nregs);
  for (uint32_t k = 0; k < n; ++k) {
    const BasicBlock* b = cfg.rpo[k];
    cur = u.divIn_[b->id()];
    u.ever_.unite(cur);
    transfer(b, cur, true);
  }
  for (const Instruction* i : divDefs) i->forEachDefReg([&](RegId r) { u.ever_.set(r); });
  u.divergentDefs_.assign(divDefs.begin(), divDefs.end());
  std::sort(u.divergentDefs_.begin(), u.divergentDefs_.end());
  return u;
}

}  // namespace ptxopt
