#include "ptxopt/analysis/Liveness.h"

#include "ptxopt/analysis/CfgInfo.h"

namespace ptxopt {

namespace {

// The registers `b` reads before it surely writes them (u) and those it surely writes (d), of the
// first d.size() registers.
void useAndDef(const BasicBlock& b, BitVector& u, BitVector& d) {
  const size_t n = d.size();
  for (const Instruction* inst : b.insts()) {
    if (inst->info().isPseudo()) continue;
    inst->forEachUseReg([&](RegId r) {
      if (r < n && !d.test(r)) u.set(r);
    });
    forEachKilledReg(*inst, [&](RegId r) {
      if (r < n) d.set(r);
    });
  }
}

// in = use ∪ (out − def), with out the union of the successors' live-in sets.
BitVector liveInOf(const Liveness& lv, const BasicBlock& b, BitVector& out) {
  const size_t n = out.size();
  BitVector u(n), d(n);
  useAndDef(b, u, d);
  out = BitVector(n);
  for (const Edge& e : b.succs()) out.unite(lv.liveIn[e.to->id()]);
  BitVector in = out;
  in.subtract(d);
  in.unite(u);
  return in;
}

}  // namespace

bool updateLivenessAfterBlockChange(Liveness& lv, const BasicBlock& b) {
  if (b.id() >= lv.liveIn.size()) return false;
  const size_t n = lv.liveIn[b.id()].size();
  BitVector out(n);
  BitVector in = liveInOf(lv, b, out);
  lv.liveOut[b.id()] = out;
  BitVector lost = lv.liveIn[b.id()];
  lost.subtract(in);
  if (lost.any()) return false;
  if (in == lv.liveIn[b.id()]) return true;
  lv.liveIn[b.id()] = std::move(in);
  // The growth, carried backwards: a set only grows, so this ends at the least fixed point above
  // the old one, which is the new one.
  std::vector<const BasicBlock*> work(b.preds().begin(), b.preds().end());
  while (!work.empty()) {
    const BasicBlock* p = work.back();
    work.pop_back();
    if (p->id() >= lv.liveIn.size()) return false;
    BitVector pin = liveInOf(lv, *p, out);
    lv.liveOut[p->id()] = out;
    if (pin == lv.liveIn[p->id()]) continue;
    BitVector shrunk = lv.liveIn[p->id()];
    shrunk.subtract(pin);
    if (shrunk.any()) return false;  // not a growth: the old sets do not hold there
    lv.liveIn[p->id()] = std::move(pin);
    work.insert(work.end(), p->preds().begin(), p->preds().end());
  }
  return true;
}

Liveness LivenessAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  Liveness lv;
  const uint32_t numRegs = static_cast<uint32_t>(f.regs().size());
  const uint32_t nb = f.blockIdBound();
  lv.liveIn.assign(nb, BitVector(numRegs));
  lv.liveOut.assign(nb, BitVector(numRegs));
  std::vector<BitVector> use(nb, BitVector(numRegs)), def(nb, BitVector(numRegs));
  for (const BasicBlock* b : f.blocks()) useAndDef(*b, use[b->id()], def[b->id()]);
  // Backward dataflow to a fixed point, visiting in post-order (reverse RPO), unreachable blocks
  // after in layout order. After the first round only the blocks whose successor's live-in set
  // grew are visited again (before, every round visited every block, and the last one changed
  // nothing: on thrust_sort a quarter of ptxopt -O2's time went to liveness).
  std::vector<const BasicBlock*> order(cfg.rpo.rbegin(), cfg.rpo.rend());
  order.insert(order.end(), cfg.unreachable.rbegin(), cfg.unreachable.rend());
  std::vector<uint32_t> position(nb, 0);
  for (uint32_t k = 0; k < order.size(); ++k) position[order[k]->id()] = k;
  std::vector<uint8_t> dirty(nb, 1);
  for (bool again = true; again;) {
    again = false;
    for (uint32_t k = 0; k < order.size(); ++k) {
      const BasicBlock* b = order[k];
      if (!dirty[b->id()]) continue;
      dirty[b->id()] = 0;
      BitVector& out = lv.liveOut[b->id()];
      for (const Edge& e : b->succs()) out.unite(lv.liveIn[e.to->id()]);
      if (!lv.liveIn[b->id()].assignTransfer(out, def[b->id()], use[b->id()])) continue;
      for (const BasicBlock* p : b->preds()) {
        dirty[p->id()] = 1;
        again |= position[p->id()] <= k;  // visited already in this round
      }
    }
  }
  return lv;
}

}  // namespace ptxopt
