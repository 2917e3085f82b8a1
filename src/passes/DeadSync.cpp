// dead-sync: removes CTA barriers that order no cross-thread memory hazard (seed 001,
// "branch-dist"; docs/passes/dead-sync.md).
//
// Every instruction is classified by what it may read and write in shared and in global
// memory (a generic access counts as both; local, param and const accesses do not count;
// atomics read and write; anything the memory-space analysis cannot place, an opaque
// instruction or a call counts as every access). A forward dataflow gives, before each
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
// barriers. A barrier in a block that a divergent branch controls is left alone. A call counts
// as its callee's summary (analysis/MemoryEffects.h) and, as its callee may hold a barrier,
// never separates two regions; a .func's entry and exits see every access of its callers.
#include <algorithm>
#include <map>
#include <optional>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/MemoryEffects.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt {

namespace {

using Access = MemEffects;

// The hazard between `above` and `below`, or 0: in one space, a write then a read or write, or
// a read then a write.
Access hazard(Access above, Access below) {
  Access h = 0;
  for (auto [r, w] : {std::pair{MemEffect::ReadShared, MemEffect::WriteShared},
                      std::pair{MemEffect::ReadGlobal, MemEffect::WriteGlobal}})
    if (((above & w) && (below & (r | w))) || ((above & r) && (below & w))) h |= r | w;
  return h;
}

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

class DeadSync : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    const KnobValues& k = ctx.knobs();
    std::string skip = "," + k.getString("skip-functions") + ",";
    if (skip.find("," + std::string(f.name()) + ",") != std::string::npos) return PassResult::unchanged();
    int64_t blockLimit = k.getInt("block-limit");
    if (blockLimit >= 0 && static_cast<int64_t>(f.blocks().size()) > blockLimit) return PassResult::unchanged();
    bool changed = false, firstRound = true;
    uint64_t removed = 0;
    for (;;) {
      Verdicts v = analyse(f, am, k, ctx.callSummaries());
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
      ctx.remark(b, "remove", "'" + oneLine(printInstruction(f, *bar)) + "' (line " + std::to_string(bar->loc().line) +
                                  ") orders no hazard: above " + memEffectsText(v.above) + "; below " + memEffectsText(v.below),
                 {{"line", double(bar->loc().line)}});
      b->insts().erase(b->insts().begin() + static_cast<std::ptrdiff_t>(v.removable->index));
      ++removed;
      changed = true;
      // A barrier is not a terminator: the edges stay.
      am.invalidate(PreservedAnalyses::cfg());
    }
    ctx.count("barriers-removed", removed);
    return changed ? PassResult::changed(PreservedAnalyses::cfg()) : PassResult::unchanged();
  }

 private:
  struct Verdicts {
    std::optional<Candidate> removable;  // the first removable barrier in reverse post-order
    Access above = 0, below = 0;
    uint64_t seen = 0;
    std::map<std::string, uint64_t> kept;
    std::vector<std::pair<const BasicBlock*, std::string>> keptRemarks;
  };

  static Verdicts analyse(Function& f, FunctionAnalysisManager& am, const KnobValues& k, const CallSummaries* calls) {
    Verdicts v;
    const CfgInfo& cfg = am.get<CfgAnalysis>();
    const MemorySpaceInfo& mem = am.get<MemorySpaceAnalysis>();
    MemEffectsOptions eo;
    eo.privateSpacesCount = k.getBool("ignore-address-space-check");
    eo.callsTouchNothing = k.getBool("ignore-call-safety");
    const Module& module = *f.parent();
    auto classify = [&](const Instruction& i) { return memEffects(i, mem, module, calls, eo); };
    bool local = k.getBool("disable-complex");
    uint32_t n = cfg.size();

    // A separator ends a region: a barrier every thread waits at (isFullCtaBarrier). A call
    // never is one, even when its callee holds a barrier: the callee may run it under a
    // condition. Per block: the accesses before its first separator (or all of it: `top`), after
    // its last one (`bottom`), and whether it has a separator.
    std::vector<Access> top(n, 0), bottom(n, 0);
    std::vector<char> hasSep(n, 0);
    for (uint32_t x = 0; x < n; ++x) {
      for (const Instruction* i : cfg.rpo[x]->insts()) {
        if (isFullCtaBarrier(*i)) {
          hasSep[x] = 1;
          bottom[x] = 0;
          continue;
        }
        Access a = classify(*i);
        if (!hasSep[x]) top[x] |= a;
        bottom[x] |= a;
      }
    }
    // Whatever callers do before a .func and after it returns: every access.
    Access context = f.isEntry ? 0 : MemEffect::All;
    std::vector<Access> in(n, 0), out(n, 0);  // forward: accesses since the last separator
    std::vector<Access> bin(n, 0), bout(n, 0);  // backward: accesses until the next separator
    auto isExit = [&](uint32_t x) { return cfg.succ[x].empty(); };
    if (local) {
      // No propagation: whatever lies beyond the block is unknown.
      for (uint32_t x = 0; x < n; ++x) {
        in[x] = MemEffect::All;
        bout[x] = MemEffect::All;
      }
    } else {
      for (bool again = true; again;) {
        again = false;
        for (uint32_t x = 0; x < n; ++x) {
          Access i = x == 0 ? context : 0;
          for (uint32_t p : cfg.pred[x]) i |= out[p];
          Access o = hasSep[x] ? bottom[x] : static_cast<Access>(i | top[x]);
          if (i != in[x] || o != out[x]) again = true;
          in[x] = i;
          out[x] = o;
        }
        for (uint32_t y = n; y-- > 0;) {
          Access o = isExit(y) ? context : 0;
          for (uint32_t s : cfg.succ[y]) o |= bin[s];
          Access i = hasSep[y] ? top[y] : static_cast<Access>(o | bottom[y]);
          if (o != bout[y] || i != bin[y]) again = true;
          bout[y] = o;
          bin[y] = i;
        }
      }
    }

    std::vector<uint8_t> divergent = divergentlyReachedBlocks(am);
    auto keep = [&](const BasicBlock* b, const std::string& reason, std::string detail) {
      ++v.kept[reason];
      v.keptRemarks.emplace_back(b, std::move(detail));
    };
    for (uint32_t x = 0; x < n; ++x) {
      BasicBlock* b = const_cast<BasicBlock*>(cfg.rpo[x]);
      // Accesses from the previous separator (or the block's entry) to each barrier.
      Access above = in[x];
      std::vector<Instruction*>& insts = b->insts();
      // Accesses after each position up to the next separator: scan from the end.
      std::vector<Access> after(insts.size() + 1, 0);
      after[insts.size()] = bout[x];
      for (size_t j = insts.size(); j-- > 0;)
        after[j] = isFullCtaBarrier(*insts[j]) ? 0 : static_cast<Access>(after[j + 1] | classify(*insts[j]));
      for (size_t j = 0; j < insts.size(); ++j) {
        const Instruction& i = *insts[j];
        if (!i.info().is(OpFlag::CtaBarrier)) {
          above |= classify(i);
          continue;
        }
        ++v.seen;
        std::string what = "'" + oneLine(printInstruction(f, i)) + "' (line " + std::to_string(i.loc().line) + ")";
        Access below = after[j + 1];
        if (i.has(Mod::Red)) {
          keep(b, "reduction", what + " returns data (bar.red)");
        } else if (i.has(Mod::Arrive)) {
          keep(b, "arrive", what + " is an arrival, not a wait");
        } else if (i.hasGuard()) {
          keep(b, "guarded", what + " is guarded");
        } else if (!isFullCtaBarrier(i)) {
          keep(b, "thread-count", what + " names a thread count");
        } else if (!(i.operand(i.numDefOperands()).isImm() && i.operand(i.numDefOperands()).value == 0)) {
          keep(b, "named", what + " is a named barrier (an id other than 0)");
        } else if (divergent[x]) {
          keep(b, "divergent", what + " is reached under a divergent branch");
        } else if (Access h = hazard(above, below)) {
          keep(b, "hazard", what + " orders " + memEffectsText(h) + " (above: " + memEffectsText(above) + "; below: " +
                                memEffectsText(below) + ")");
        } else if (!v.removable) {
          v.removable = Candidate{b, j};
          v.above = above;
          v.below = below;
        }
        if (isFullCtaBarrier(i)) above = 0;
      }
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
              {"ignore-address-space-check", KnobType::Bool, "false",
               "count local, param and const accesses as shared and global ones (keeps more barriers)"},
              {"disable-complex", KnobType::Bool, "false",
               "no propagation through the CFG: what lies beyond a barrier's block counts as every access"},
              {"ignore-call-safety", KnobType::Bool, "false",
               "count every call as touching no memory (unsound for a callee that writes through a pointer; the seed's default)",
               /*unsound=*/true},
              {"skip-functions", KnobType::String, "", "comma list of functions to leave alone"},
              {"block-limit", KnobType::Int, "-1", "leave functions with more blocks than this alone (-1: no limit)"},
          },
          [] { return std::make_unique<DeadSync>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/true};
}

}  // namespace ptxopt
