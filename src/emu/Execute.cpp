// Executing a decoded instruction on a warp: data instructions run their loop (Kernels.cpp);
// branches, calls, exits, barriers, memory and warp collectives are handled here and in
// Control.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "Cta.h"
#include "Printf.h"
#include "Semantics.h"

namespace ptxopt::emu {

// ---- dispatch --------------------------------------------------------------------------------

void CtaRunner::execute(Warp& w, const DInst& I) {
  StackEntry& e = w.stack.back();
  Frame* f = e.frame;
  uint32_t exec = e.mask;
  if (I.guard >= 0) {
    const uint64_t* g = f->slot(static_cast<uint32_t>(I.guard));
    uint32_t pred = 0;
    forLanes(exec, [&](int lane) { pred |= static_cast<uint32_t>(g[lane] & 1) << lane; });
    exec &= I.guardNeg ? ~pred : pred;
  }
  ++metrics.warpInstructions;
  metrics.threadInstructions += popc(exec);
  ++w.clock;
  LineMetrics* lm = nullptr;
  if (L_.opts.perLineMetrics) {
    lm = &metrics.perLine[I.line];
    ++lm->warpInstructions;
    lm->threadInstructions += popc(exec);
  }

  // Data instructions: their loop over the lanes (Kernels.cpp).
  if (I.general) {
    if (exec) (fastPaths_ ? I.fast : I.general)(I, f->regs.data(), exec);
    ++e.pc;
    return;
  }

  switch (I.op) {
    case XOp::Bra: {
      uint32_t taken = exec, notTaken = e.mask & ~exec;
      ++metrics.branches;
      if (lm) ++lm->branches;
      if (I.guard >= 0 && L_.opts.branchProfile) {
        BranchCounts& c = metrics.branchOutcomes[I.line];
        ++(!notTaken ? c.allTaken : !taken ? c.allNotTaken : c.divergent);
      }
      if (!notTaken) {
        e.pc = I.target;
      } else if (!taken) {
        ++e.pc;
      } else {
        ++metrics.divergentBranches;
        if (lm) ++lm->divergentBranches;
        if (I.uni) ++metrics.uniSplits[I.line];
        diverge(w, {{e.pc + 1, notTaken}, {I.target, taken}}, I.rpc);
      }
      return;
    }
    case XOp::BrxIdx: {
      ++metrics.branches;
      if (lm) ++lm->branches;
      uint32_t skipped = e.mask & ~exec;  // a guarded brx.idx falls through for the others
      const uint64_t* idx = f->slot(I.src[0]);
      LaneGroups paths = groupLanes(exec, [&](int lane) {
        uint64_t k = idx[lane] & 0xFFFFFFFFu;
        if (k >= I.targets.size())
          faultAt(w, lane, I, "brx.idx index " + std::to_string(k) + " is outside its table of " + std::to_string(I.targets.size()) + " entries");
        return I.targets[k];
      });
      if (skipped) paths.emplace_back(e.pc + 1, skipped);
      if (L_.opts.branchProfile) {
        BranchCounts& c = metrics.branchOutcomes[I.line];
        c.indirect = true;
        ++c.distinctTargets[static_cast<uint32_t>(paths.size())];
      }
      if (paths.size() == 1) {
        e.pc = paths[0].first;
      } else {
        ++metrics.divergentBranches;
        if (lm) ++lm->divergentBranches;
        diverge(w, paths, I.rpc);
      }
      return;
    }
    case XOp::Ret:
    case XOp::Exit: {
      // A ret inside a call: the lanes leave the call and wait in the caller's entry, after the
      // call. A ret from the kernel, or exit: the lanes are done.
      const bool exits = I.op == XOp::Exit || !f->caller;
      const uint32_t stay = e.mask & ~exec;
      if (exits) w.exited |= exec;
      removeLanes(w, exec, exits ? nullptr : f);
      if (stay) w.stack.back().pc++;
      if (exits && exec) recheckBarriersAfterExit();
      return;
    }
    case XOp::Trap:
      if (exec) faultAt(w, std::countr_zero(exec), I, "trap executed");
      ++e.pc;
      return;
    case XOp::Call: call(w, I, exec); return;
    case XOp::Barrier:
      ++metrics.barriers;
      arriveBarrier(w, I, exec);
      return;
    case XOp::WarpSync:
      if (exec) {
        arriveWarpSync(w, I, exec);
      } else {
        ++e.pc;
      }
      return;
    case XOp::Unsupported:
      if (exec) {
        const auto& u = L_.P.unsupported[I.call];
        faultAt(w, std::countr_zero(exec), I,
                std::string(u.invalid ? "invalid instruction: " : "unsupported instruction: ") + u.text +
                    (u.why.empty() ? "" : " (" + u.why + ")"));
      }
      ++e.pc;
      return;
    default: break;
  }

  if (exec) {
    switch (I.op) {
      case XOp::Nop: break;
      case XOp::Mov: {  // the address of a variable or function (other movs have a loop)
        uint64_t* d = f->slot(I.dst[0]);
        StateSpace sp;
        uint64_t a = symbolAddress(w, I.addrSym, I.addrOffset, sp);
        if (I.addrSym.kind == SymRef::Kind::None || I.addrSym.kind == SymRef::Kind::FrameParam ||
            I.addrSym.kind == SymRef::Kind::CalleeParam || I.addrSym.kind == SymRef::Kind::CalleeRetval)
          faultAt(w, std::countr_zero(exec), I, "the address of this parameter cannot be taken");
        forLanes(exec, [&](int lane) { d[lane] = a; });
        break;
      }
      case XOp::ReadClock: {
        uint64_t* d = f->slot(I.dst[0]);
        SpecialReg r = I.clock;
        uint64_t v = w.clock * 4;  // a deterministic counter: 4 cycles per warp instruction
        if (r == SpecialReg::Globaltimer || r == SpecialReg::GlobaltimerLo || r == SpecialReg::GlobaltimerHi) v = w.clock * 2;
        if (r == SpecialReg::Clock || r == SpecialReg::GlobaltimerLo) v &= 0xFFFFFFFFu;
        if (r == SpecialReg::ClockHi || r == SpecialReg::GlobaltimerHi) v >>= 32;
        forLanes(exec, [&](int lane) { d[lane] = v; });
        break;
      }
      case XOp::Cvta: {  // of a variable's address (cvta of a register has a loop)
        uint64_t* d = f->slot(I.dst[0]);
        StateSpace sp;
        uint64_t v = symbolAddress(w, I.addrSym, I.addrOffset, sp), window = generic(I.space, 0);
        uint64_t m = typeBits(I.t) == 32 ? 0xFFFFFFFFu : ~uint64_t(0);
        v = (I.toSpace ? v - window : v + window) & m;
        forLanes(exec, [&](int lane) { d[lane] = v; });
        break;
      }
      case XOp::Ld: load(w, I, exec); break;
      case XOp::St: store(w, I, exec); break;
      case XOp::Atom: atomic(w, I, exec); break;
      case XOp::CpAsync:
        asyncCopy(w, I, exec);
        break;
      case XOp::CpAsyncCommit:
        asyncCommit(w, exec);
        break;
      case XOp::CpAsyncWait:
        asyncWait(w, I, exec);
        break;
      case XOp::Mbarrier:
        if (!mbarrier(w, I, exec)) return;  // parked at a try_wait: the pc stays
        break;
      case XOp::CpAsyncBulk: bulkCopy(w, I, exec); break;
      case XOp::CpAsyncBulkCommit: bulkCommit(w, exec); break;
      case XOp::CpAsyncBulkWait: bulkWait(w, I, exec); break;
      case XOp::Mapa: mapa(w, I, exec); break;
      case XOp::Tex: texture(w, I, exec); break;
      case XOp::Suld:
      case XOp::Sust: surface(w, I, exec); break;
      case XOp::TexQuery: textureQuery(w, I, exec); break;
      case XOp::TensormapReplace: tensormapReplace(w, I, exec); break;
      case XOp::TensormapCopy: tensormapCopy(w, I, exec); break;
      case XOp::Ldmatrix:
      case XOp::Stmatrix:
      case XOp::Movmatrix:
      case XOp::Mma:
      case XOp::WmmaLoad:
      case XOp::WmmaStore:
      case XOp::WmmaMma: matrix(w, I, exec); break;
      case XOp::WgmmaFence:
      case XOp::WgmmaMma:
      case XOp::WgmmaCommit:
      case XOp::WgmmaWait: wgmma(w, I, exec); break;
      case XOp::Shfl:
      case XOp::Vote:
      case XOp::Match:
      case XOp::Redux:
      case XOp::Elect: warpCollective(w, I, exec); return;  // it advances (or parks) the entry
      case XOp::Activemask: warpCollective(w, I, exec); break;
      default: faultAt(w, std::countr_zero(exec), I, "internal error: no semantics for this instruction");
    }
  }
  ++w.stack.back().pc;
}

}  // namespace ptxopt::emu
