// dead-sync: removes CTA barriers that order no cross-thread memory hazard (seed 001,
// "branch-dist"; docs/passes/dead-sync.md).
//
// Every instruction is classified by what it may read and write in shared and in global
// memory (a generic access counts as both; local, param and const accesses do not count;
// atomics read and write; anything the memory-space analysis cannot place, an opaque
// instruction, an asynchronous memory operation -- OpFlag::AsyncMemory: a cp.async, its commit
// and its wait, where the copy lands -- or a call counts as every access). A forward dataflow gives, before each
// barrier, the accesses on some path from the previous barrier or the function entry (loop back
// edges carry the end of an iteration to the top of the next); a backward one gives the
// accesses after it up to the next barrier or an exit. A barrier goes only when, in each space,
// nothing written above is read or written below and nothing read above is written below.
// Then the analysis starts over (a removal merges two regions).
//
// The seed also removes a barrier when nothing above it is read while nothing below it is
// written, or nothing above it is written while nothing below it is read. Both are unsound:
// with a write above and a write below (output dependence) or a read above and a write below
// (anti dependence) another thread's order matters. tests/lit/passes/dead-sync/ has the
// producer/consumer kernel the seed's rule miscompiles.
//
// Never removed: bar.red/barrier.red (their result is data), barriers with a thread count,
// named barriers (an id other than the constant 0: some bar.arrive may pair with them),
// bar.arrive, guarded barriers, barrier.cluster, mbarrier, bar.warp.sync; fences are not
// barriers. A barrier in a block that a branch which may split the CTA controls (CTA-level
// uniformity: a branch on %warpid splits it along warp boundaries) is left alone, and so is
// every barrier of a function the CTA's threads may not all enter together. A call counts
// as its callee's summary (analysis/MemoryEffects.h) and, as its callee may hold a barrier,
// never separates two regions; a .func's entry and exits see what its callers do around the
// calls when every call site is known, every access otherwise (MemoryEffects.h).
//
// With `private-slots`, accesses of a thread-slot class (analysis/ThreadSlots.h: each thread
// touches its own bytes only, s[%tid.x] in a CTA that .reqntid makes one-dimensional) do not
// form a hazard with accesses of the same class.
#include <algorithm>
#include <map>
#include <optional>

#include "ptxopt/analysis/BarrierRegions.h"
#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/MemoryEffects.h"
#include "ptxopt/analysis/ThreadSlots.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt {

namespace {

// An instruction as one line of text for a remark ("bar.sync 0").
std::string oneLine(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '\t' || (!out.empty() && out.back() != ' ')) out += c == '\t' ? ' ' : c;
  return out;
}

struct Candidate {
  BasicBlock* block;
  size_t index;
};

// The function's position among the module's functions with a body (for func-limit).
int64_t functionOrdinal(const Function& f) {
  int64_t n = 0;
  for (const auto& g : f.parent()->functions()) {
    if (g.get() == &f) return n;
    if (g->hasBody) ++n;
  }
  return n;
}

class DeadSync : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    const KnobValues& k = ctx.knobs();
    std::string skip = "," + k.getString("skip-functions") + ",";
    if (skip.find("," + std::string(f.name()) + ",") != std::string::npos) return PassResult::unchanged();
    int64_t blockLimit = k.getInt("block-limit"), funcLimit = k.getInt("func-limit");
    if (blockLimit >= 0 && static_cast<int64_t>(f.blocks().size()) > blockLimit) return PassResult::unchanged();
    if (funcLimit >= 0 && functionOrdinal(f) >= funcLimit) return PassResult::unchanged();
    // Only the function's own barriers are candidates: without one there is nothing to analyse.
    bool anyBarrier = false;
    for (const BasicBlock* b : f.blocks())
      for (const Instruction* i : b->insts()) anyBarrier |= i->info().is(OpFlag::CtaBarrier);
    if (!anyBarrier) {
      ctx.count("barriers-seen", 0);
      ctx.count("barriers-removed", 0);
      return PassResult::unchanged();
    }
    bool changed = false, firstRound = true;
    uint64_t removed = 0, removedPrivate = 0;
    for (;;) {
      Verdicts v = analyse(f, am, k, ctx.callSummaries(), ctx.wantsRemarks());
      if (firstRound) {
        ctx.count("barriers-seen", v.seen);
        firstRound = false;
      }
      if (!v.removable) {
        for (const auto& [reason, n] : v.kept) ctx.count("kept-" + reason, n);
        for (auto& [block, reason] : v.keptRemarks) ctx.remark(block, "keep", reason);
        break;
      }
      BasicBlock* b = v.removable->block;
      Instruction* bar = b->insts()[v.removable->index];
      if (ctx.wantsRemarks())
        ctx.remark(b, "remove", "'" + oneLine(printInstruction(f, *bar)) + "' (line " + std::to_string(bar->loc().line) +
                                    ") orders no hazard: above " + syncAccessesText(v.above) + "; below " +
                                    syncAccessesText(v.below),
                   {{"line", double(bar->loc().line)}});
      b->insts().erase(b->insts().begin() + static_cast<std::ptrdiff_t>(v.removable->index));
      ++removed;
      if (v.byPrivateSlots) ++removedPrivate;
      changed = true;
      // A barrier is not a terminator, and one that is removed reads and writes no register
      // (`bar.sync 0`, `barrier.sync 0`) and no memory: no analysis changes (--verify-each
      // checks the claim).
    }
    ctx.count("barriers-removed", removed);
    if (removedPrivate) ctx.count("barriers-removed-private-slots", removedPrivate);
    return changed ? PassResult::changed(PreservedAnalyses::all()) : PassResult::unchanged();
  }

 private:
  struct Verdicts {
    std::optional<Candidate> removable;  // the first removable barrier in reverse post-order
    SyncAccesses above, below;
    bool byPrivateSlots = false;  // removable only because of thread-private slots
    uint64_t seen = 0;
    std::map<std::string, uint64_t> kept;
    std::vector<std::pair<const BasicBlock*, std::string>> keptRemarks;
  };

  // `remarks`: spell out why each barrier stays (printing the barrier was a tenth of the pass).
  static Verdicts analyse(Function& f, FunctionAnalysisManager& am, const KnobValues& k, const CallSummaries* calls,
                          bool remarks) {
    Verdicts v;
    const CfgInfo& cfg = am.get<CfgAnalysis>();
    const MemorySpaceInfo& mem = am.get<MemorySpaceAnalysis>();
    const ThreadSlots* slots = k.getBool("private-slots") ? &am.get<ThreadSlotsAnalysis>() : nullptr;
    MemEffectsOptions eo;
    eo.countLocalParamConst = k.getBool("count-local-param-const");
    eo.callsTouchNothing = k.getBool("ignore-call-safety");
    const Module& module = *f.parent();
    SyncClassifier classify = [&](const Instruction& i) {
      MemEffects e = memEffects(i, mem, module, calls, eo);
      if (e && slots) {
        int c = slots->privateClass(&i);
        if (c >= 0 && c < static_cast<int>(SyncAccesses::kMaxSlotClasses)) return SyncAccesses::ownSlot(c, e);
      }
      return SyncAccesses::anyOf(e);
    };
    // What callers do before the call and after it returns (nothing around a kernel).
    CallSummary self = callingContext(calls, f);
    BarrierRegions regions = computeBarrierRegions(cfg, classify, SyncAccesses::anyOf(self.before),
                                                   SyncAccesses::anyOf(self.after), !k.getBool("disable-complex"));

    // Barriers pair by count, not by instruction: one that only some of the CTA's threads reach
    // (a branch that may split the CTA, even along warp boundaries, or a function not every
    // thread enters together) pairs with other barriers of the other threads, and removing it
    // shifts the pairing.
    // Asked last (most barriers order a hazard), and computed when first asked.
    std::optional<std::vector<uint8_t>> divergent;
    auto reachedDivergently = [&](uint32_t x) {
      if (!divergent) divergent = divergentlyReachedBlocks(am, UniformityLevel::Cta);
      return (*divergent)[x] != 0;
    };
    auto keep = [&](const BasicBlock* b, const std::string& reason, const auto& detail) {
      ++v.kept[reason];
      if (remarks) v.keptRemarks.emplace_back(b, detail());
    };
    for (uint32_t x = 0; x < cfg.size(); ++x) {
      BasicBlock* b = const_cast<BasicBlock*>(cfg.rpo[x]);
      // Only barriers are looked at: a block without one is not classified instruction by
      // instruction.
      if (std::none_of(b->insts().begin(), b->insts().end(),
                       [](const Instruction* i) { return i->info().is(OpFlag::CtaBarrier); }))
        continue;
      forEachPosition(cfg, regions, x, classify, [&](size_t j, const SyncAccesses& above, const SyncAccesses& below) {
        const Instruction& i = *b->insts()[j];
        if (!i.info().is(OpFlag::CtaBarrier)) return;
        ++v.seen;
        auto what = [&] { return "'" + oneLine(printInstruction(f, i)) + "' (line " + std::to_string(i.loc().line) + ")"; };
        if (i.has(Mod::Red)) {
          keep(b, "reduction", [&] { return what() + " returns data (bar.red)"; });
        } else if (i.has(Mod::Arrive)) {
          keep(b, "arrive", [&] { return what() + " is an arrival, not a wait"; });
        } else if (i.hasGuard()) {
          keep(b, "guarded", [&] { return what() + " is guarded"; });
        } else if (!isFullCtaBarrier(i)) {
          keep(b, "thread-count", [&] { return what() + " names a thread count"; });
        } else if (!(i.operand(i.numDefOperands()).isImm() && i.operand(i.numDefOperands()).value == 0)) {
          keep(b, "named", [&] { return what() + " is a named barrier (an id other than 0)"; });
        } else if (!self.uniformEntry) {
          keep(b, "entry", [&] { return what() + " is in a function that only some of the CTA's threads may enter together"; });
        } else if (MemEffects h = syncHazard(above, below)) {
          keep(b, "hazard", [&] {
            return what() + " orders " + memEffectsText(h) + " (above: " + syncAccessesText(above) +
                   "; below: " + syncAccessesText(below) + ")";
          });
        } else if (reachedDivergently(x)) {
          keep(b, "divergent", [&] { return what() + " is reached under a branch that may split the CTA"; });
        } else if (!v.removable) {
          v.removable = Candidate{b, j};
          v.above = above;
          v.below = below;
          v.byPrivateSlots = syncHazard(SyncAccesses::anyOf(above.all()), SyncAccesses::anyOf(below.all())) != 0;
        }
      });
    }
    return v;
  }
};

}  // namespace

PassInfo deadSyncPassInfo() {
  return {"dead-sync",
          "removes CTA barriers (bar.sync 0, barrier.sync 0) that order no cross-thread shared or global memory hazard",
          "001, branch-dist (dead synchronization elimination)",
          {
              {"count-local-param-const", KnobType::Bool, "false",
               "count local, param and const accesses as shared and global ones (keeps more barriers)"},
              {"disable-complex", KnobType::Bool, "false",
               "no propagation through the CFG: what lies beyond a barrier's block counts as every access"},
              {"ignore-call-safety", KnobType::Bool, "false",
               "count every call as touching no memory (unsound for a callee that writes through a pointer; the seed's default)",
               /*unsound=*/true},
              {"private-slots", KnobType::Bool, "true",
               "accesses each thread makes to its own slot (s[%tid.x] under .reqntid X, 1, 1) form no hazard with each other"},
              {"skip-functions", KnobType::String, "", "comma list of functions to leave alone"},
              {"func-limit", KnobType::Int, "-1",
               "work on the first N functions with a body only, in module order (-1: all; for bisecting)"},
              {"block-limit", KnobType::Int, "-1", "leave functions with more blocks than this alone (-1: no limit)"},
          },
          [] { return std::make_unique<DeadSync>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/true};
}

}  // namespace ptxopt
