#include "ptxopt/analysis/Uniformity.h"

#include <algorithm>
#include <array>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Loops.h"
#include "ptxopt/analysis/MemoryEffects.h"
#include "ptxopt/analysis/Scc.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt {

namespace {

bool isKernelParam(const Function& f, uint32_t name) {
  if (!f.isEntry) return false;
  for (const Variable& p : f.params)
    if (p.name == name) return true;
  return false;
}

bool readsVaryingSpecial(const Instruction& inst, UniformityLevel level) {
  bool varying = false;
  inst.forEachLeaf([&](const Operand& o) {
    if (o.kind != OperandKind::Special) return;
    const SpecialRegInfo& info = specialRegInfo(static_cast<SpecialReg>(o.id));
    if (!(level == UniformityLevel::Cta ? info.fixed : info.uniform)) varying = true;
  });
  return varying;
}

}  // namespace

bool isUniformResult(const Instruction& inst, UniformityLevel level) {
  // vote, redux, activemask: the same for the lanes of a warp, not between warps
  if (level == UniformityLevel::Warp && inst.info().is(OpFlag::UniformResult)) return true;
  // bar.red/barrier.red: every thread that takes part gets the same reduction; with a thread
  // count, the CTA's warps may take part in different instances
  return inst.info().is(OpFlag::CtaBarrier) && inst.has(Mod::Red) &&
         (level == UniformityLevel::Warp || isFullCtaBarrier(inst));
}

bool isDivergenceSource(const Function& f, const Instruction& inst, UniformityLevel level) {
  if (readsVaryingSpecial(inst, level)) return true;
  if (level == UniformityLevel::Cta && inst.info().is(OpFlag::UniformResult) && !isUniformResult(inst, level))
    return true;
  const OpcodeInfo& info = inst.info();
  if (info.isOpaque() || info.is(OpFlag::VaryingResult)) return true;
  switch (inst.opcode()) {
    case Opcode::Ld:
    case Opcode::Ldu: {
      StateSpace s = inst.space();
      if (isParamSpace(s)) {
        // The kernel's own parameters are uniform; a device function's arguments and call
        // results are not proven so.
        const Operand* a = operandWithRole(inst, OperandRole::Address);
        return !(a && a->addressBase() == AddressBase::Symbol && isKernelParam(f, a->id));
      }
      if (s == StateSpace::Const) return false;
      if (inst.is(Opcode::Ldu) && s != StateSpace::Local) return false;
      return true;  // local, global, shared, generic memory
    }
    default: return false;
  }
}

bool UniformityInfo::isDivergentDef(const Instruction* inst) const {
  return std::find(divergentDefs_.begin(), divergentDefs_.end(), inst) != divergentDefs_.end();
}

std::vector<uint8_t> divergentlyReachedBlocks(FunctionAnalysisManager& am, UniformityLevel level) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const UniformityInfo& uni =
      level == UniformityLevel::Cta ? am.get<CtaUniformityAnalysis>() : am.get<UniformityAnalysis>();
  const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();
  uint32_t n = cfg.size();
  std::vector<uint8_t> out(n, 0);
  std::vector<uint32_t> work;
  for (uint32_t d = 0; d < n; ++d) {
    if (!uni.isDivergentBranch(cfg.rpo[d])) continue;
    uint32_t stop = pdt.ipdom(d);
    work.assign(cfg.succ[d].begin(), cfg.succ[d].end());
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      if (x == stop || out[x]) continue;
      out[x] = 1;
      work.insert(work.end(), cfg.succ[x].begin(), cfg.succ[x].end());
    }
  }
  return out;
}

UniformityInfo computeUniformity(const Function& f, FunctionAnalysisManager& am, UniformityLevel level) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();
  const uint32_t nregs = static_cast<uint32_t>(f.regs().size());
  const uint32_t nb = f.blockIdBound();
  const uint32_t n = cfg.size();

  UniformityInfo u;
  u.divIn_.assign(nb, BitVector(nregs));
  u.divBranch_.assign(nb, 0);
  u.ever_ = BitVector(nregs);
  // Each block's divergent registers on exit, and those its joins make divergent on entry (by
  // block id; one allocation each rather than one per block).
  BitRows divOut(nb, nregs), joinDiv(nb, nregs);
  // The divergent definitions each block's latest walk found (by RPO number). A block's entry
  // set changes only when the block is walked, so its latest walk is the one from the final
  // set: these are the divergent definitions, without another walk at the end.
  std::vector<std::vector<const Instruction*>> walkDivDefs(n);

  // What the walks need to know of each instruction, found once: the instructions that end a
  // block or write a register, block after block in RPO (block k's are steps[stepStart[k] ..
  // stepStart[k + 1])).
  enum : uint8_t { kTerminator = 1, kBrxByReg = 2, kWrites = 4, kUniformResult = 8, kSource = 16 };
  struct Step {
    const Instruction* inst;
    uint8_t flags;
  };
  std::vector<Step> steps;
  std::vector<uint32_t> stepStart(n + 1, 0);
  for (uint32_t k = 0; k < n; ++k) {
    stepStart[k] = static_cast<uint32_t>(steps.size());
    for (const Instruction* i : cfg.rpo[k]->insts()) {
      const OpcodeInfo& info = i->info();
      if (info.isPseudo()) continue;
      uint8_t flags = 0;
      if (info.isTerminator()) {
        flags |= kTerminator;
        if (i->is(Opcode::BrxIdx) && i->numOperands() && i->operand(0).isReg()) flags |= kBrxByReg;
      }
      if (i->numDefOperands() != 0) {
        flags |= kWrites;
        if (isUniformResult(*i, level)) flags |= kUniformResult;
        else if (isDivergenceSource(f, *i, level)) flags |= kSource;
      }
      if (flags) steps.push_back(Step{i, flags});
    }
  }
  stepStart[n] = static_cast<uint32_t>(steps.size());

  // Walks block k (an RPO number) from `div` (the divergent registers on entry); records
  // divergent results in walkDivDefs[k] and returns whether the terminator decides divergently.
  auto transfer = [&](uint32_t k, BitVector& div) {
    std::vector<const Instruction*>& found = walkDivDefs[k];
    found.clear();
    bool branchDivergent = false;
    for (uint32_t j = stepStart[k]; j < stepStart[k + 1]; ++j) {
      const Instruction* i = steps[j].inst;
      const uint8_t flags = steps[j].flags;
      bool guardDiv = i->hasGuard() && div.test(i->guard());
      if (flags & kTerminator) branchDivergent = guardDiv || ((flags & kBrxByReg) && div.test(i->operand(0).id));
      if (!(flags & kWrites)) continue;
      bool result;
      if (flags & kUniformResult) {
        result = guardDiv;
      } else {
        result = guardDiv || (flags & kSource);
        if (!result) i->forEachUseReg([&](RegId r) { result = result || div.test(r); });
      }
      if (result) {
        i->forEachDefReg([&](RegId r) { div.set(r); });
        found.push_back(i);
      } else {
        forEachKilledReg(*i, [&](RegId r) { div.reset(r); });
      }
    }
    return branchDivergent;
  };

  // Registers each block writes (by RPO number).
  BitRows blockDefs(n, nregs);
  for (uint32_t k = 0; k < n; ++k)
    for (const Instruction* i : cfg.rpo[k]->insts())
      if (!i->info().isPseudo()) i->forEachDefReg([&](RegId r) { blockDefs.set(k, r); });

  // The region of a post-dominator P: the blocks reachable from the successors of divergent
  // branches whose immediate post-dominator is P, without passing P. For each block, the
  // registers written on some path from it to P (by strongly connected component, so the work
  // is shared by every branch with the same P: a chain of early exits costs linear time). What
  // a block reaches does not depend on the other starts, so a region only grows: the search
  // goes on from each new start, over the blocks not seen yet.
  struct Region {
    SparseSccState state;
    std::unordered_map<uint32_t, uint32_t> sccOf;
    BitRows sccDefs;
  };
  std::unordered_map<uint32_t, Region> regions;
  // The registers written on some path from `start` (not P) to P.
  auto regionDefs = [&](uint32_t post, uint32_t start) -> const uint64_t* {
    auto [it, fresh] = regions.try_emplace(post);
    Region& R = it->second;
    if (fresh) R.sccDefs = BitRows(0, nregs);
    auto successors = [&](uint32_t v) {
      std::vector<uint32_t> out;
      for (uint32_t w : cfg.succ[v])
        if (w != post) out.push_back(w);
      return out;
    };
    forEachScc(R.state, std::array<uint32_t, 1>{start}, successors, [&](const std::vector<uint32_t>& members) {
      uint32_t id = static_cast<uint32_t>(R.sccDefs.add());
      for (uint32_t m : members) R.sccOf[m] = id;
      // Successor components are complete already (Tarjan finishes sinks first).
      for (uint32_t m : members) {
        R.sccDefs.unite(id, blockDefs.row(m));
        for (uint32_t y : cfg.succ[m]) {
          if (y == post) continue;
          uint32_t sy = R.sccOf[y];
          if (sy != id) R.sccDefs.unite(id, R.sccDefs.row(sy));
        }
      }
    });
    return R.sccDefs.row(R.sccOf.at(start));
  };
  const LoopInfo& loops = am.get<LoopAnalysis>();
  BitRows loopDefs(loops.loops.size(), nregs);
  std::vector<uint8_t> loopDefsDone(loops.loops.size(), 0);
  std::vector<uint32_t> label(n), visitStamp(n, 0), seenStamp(n, 0), work;
  uint32_t stamp = 0, seen = 0;
  // Blocks (RPO numbers) whose entry may have grown since they were last walked.
  std::vector<uint8_t> dirty(n, 1);

  // Sync dependence of the branch ending block k (an RPO number), divergent now: what the ways
  // from it write before they meet is divergent where they meet. Marks the joins whose entry
  // grew; returns whether one of them is at or before k (another sweep is needed).
  auto syncDependence = [&](uint32_t k) {
    bool back = false;
    auto grow = [&](uint32_t j, const uint64_t* defs) {
      if (joinDiv.unite(cfg.rpo[j]->id(), defs)) {
        dirty[j] = 1;
        back |= j <= k;
      }
    };
    uint32_t post = pdt.ipdom(k);
    std::vector<uint32_t> others;  // successors other than the post-dominator
    for (uint32_t s : cfg.succ[k])
      if (s != post) others.push_back(s);
    BitVector defs(nregs);
    std::vector<uint32_t> joins;
    if (others.size() <= 1) {
      // One way leads straight to the post-dominator (a triangle, an early exit, a loop's
      // exit test): the post-dominator is the only join, and what the other way writes
      // before reaching it is shared by every branch with the same post-dominator.
      if (!others.empty()) defs.unite(regionDefs(post, others[0]));
      if (post < n) joins.push_back(post);
    } else {
      // Several ways: follow each from its successor up to the post-dominator (and not
      // through the branch again); blocks two ways reach are joins.
      ++stamp;
      std::vector<uint32_t> visitedList;
      for (uint32_t si = 0; si < others.size(); ++si) {
        work.assign(1, others[si]);
        ++seen;
        seenStamp[others[si]] = seen;
        while (!work.empty()) {
          uint32_t x = work.back();
          work.pop_back();
          if (visitStamp[x] != stamp) {
            visitStamp[x] = stamp;
            label[x] = si;
            visitedList.push_back(x);
          } else if (label[x] != si && label[x] != UINT32_MAX) {
            label[x] = UINT32_MAX;
            joins.push_back(x);
          }
          if (x == post || x == k) continue;
          for (uint32_t y : cfg.succ[x])
            if (seenStamp[y] != seen) {
              seenStamp[y] = seen;
              work.push_back(y);
            }
        }
      }
      for (uint32_t x : visitedList)
        if (x != post) defs.unite(blockDefs.row(x));
      if (post < n && std::find(joins.begin(), joins.end(), post) == joins.end()) joins.push_back(post);
    }
    for (uint32_t j : joins) grow(j, defs.data());
    // Temporal divergence: lanes that do not reconverge inside a loop leave it in different
    // iterations; whatever the loop writes is divergent where they arrive.
    for (int32_t l = loops.innermost[k]; l >= 0; l = loops.loops[static_cast<uint32_t>(l)].parent) {
      const Loop& L = loops.loops[static_cast<uint32_t>(l)];
      if (post < n && std::binary_search(L.blocks.begin(), L.blocks.end(), post)) break;
      if (!loopDefsDone[static_cast<uint32_t>(l)]) {
        for (uint32_t m : L.blocks) loopDefs.unite(static_cast<uint32_t>(l), blockDefs.row(m));
        loopDefsDone[static_cast<uint32_t>(l)] = 1;
      }
      for (const auto& [from, to] : L.exits) grow(to, loopDefs.row(static_cast<uint32_t>(l)));
    }
    return back;
  };

  // Forward dataflow to a fixed point in RPO, walking only the blocks whose entry grew. A branch
  // found divergent has its sync dependence carried out at once, so that the joins after it
  // (most of them) are walked once, with it; a change that reaches back (a back edge, a join
  // before the branch) asks for another sweep. The sets only grow: the fixed point is the least
  // one whatever the order (before, all of a sweep's divergent branches were carried out after
  // it, and the second sweep walked most blocks again).
  std::vector<uint8_t> branchSeen(nb, 0);
  BitVector cur(nregs);
  for (bool again = true; again;) {
    again = false;
    for (uint32_t k = 0; k < n; ++k) {
      if (!dirty[k]) continue;
      dirty[k] = 0;
      const BasicBlock* b = cfg.rpo[k];
      BitVector& in = u.divIn_[b->id()];
      in.unite(joinDiv.row(b->id()));
      for (uint32_t p : cfg.pred[k]) in.unite(divOut.row(cfg.rpo[p]->id()));
      cur = in;
      u.divBranch_[b->id()] = transfer(k, cur);
      if (cur.storeInto(divOut.row(b->id()))) {
        for (uint32_t s : cfg.succ[k]) {
          dirty[s] = 1;
          again |= s <= k;
        }
      }
      if (u.divBranch_[b->id()] && !branchSeen[b->id()] && cfg.succ[k].size() >= 2) {
        branchSeen[b->id()] = 1;
        again |= syncDependence(k);
      }
    }
  }
  // Everything ever divergent: on entry to a block, or written divergently.
  for (uint32_t k = 0; k < n; ++k) {
    u.ever_.unite(u.divIn_[cfg.rpo[k]->id()]);
    u.divergentDefs_.insert(u.divergentDefs_.end(), walkDivDefs[k].begin(), walkDivDefs[k].end());
  }
  for (const Instruction* i : u.divergentDefs_) i->forEachDefReg([&](RegId r) { u.ever_.set(r); });
  return u;
}

}  // namespace ptxopt
