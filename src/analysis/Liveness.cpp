#include "ptxopt/analysis/Liveness.h"

#include "ptxopt/analysis/CfgInfo.h"

namespace ptxopt {

Liveness LivenessAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  Liveness lv;
  const uint32_t numRegs = static_cast<uint32_t>(f.regs().size());
  const uint32_t nb = f.blockIdBound();
  lv.liveIn.assign(nb, BitVector(numRegs));
  lv.liveOut.assign(nb, BitVector(numRegs));
  std::vector<BitVector> use(nb, BitVector(numRegs)), def(nb, BitVector(numRegs));
  for (const BasicBlock* b : f.blocks()) {
    BitVector& u = use[b->id()];
    BitVector& d = def[b->id()];
    for (const Instruction* inst : b->insts()) {
      if (inst->info().isPseudo()) continue;
      inst->forEachUseReg([&](RegId r) {
        if (!d.test(r)) u.set(r);
      });
      forEachKilledReg(*inst, [&](RegId r) { d.set(r); });
    }
  }
  // Backward dataflow to a fixed point; visiting in post-order (reverse RPO) converges in a
  // few rounds. Unreachable blocks follow, in layout order.
  std::vector<const BasicBlock*> order(cfg.rpo.rbegin(), cfg.rpo.rend());
  order.insert(order.end(), cfg.unreachable.rbegin(), cfg.unreachable.rend());
  bool changed = true;
  BitVector in(numRegs);
  while (changed) {
    changed = false;
    for (const BasicBlock* b : order) {
      BitVector& out = lv.liveOut[b->id()];
      for (const Edge& e : b->succs()) out.unite(lv.liveIn[e.to->id()]);
      in = out;
      in.subtract(def[b->id()]);
      in.unite(use[b->id()]);
      if (in != lv.liveIn[b->id()]) {
        lv.liveIn[b->id()] = in;
        changed = true;
      }
    }
  }
  return lv;
}

}  // namespace ptxopt
