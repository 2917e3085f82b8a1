// predication: if-conversion of short conditional regions into guarded straight-line code
// (seed 000, OriDoPredication; docs/passes/predication.md).
//
// A region is a block H ending in `@[!]%p bra T` whose two ways are chains of single-entry,
// single-exit blocks (a side) that meet again at one block M: a triangle (one side empty), a
// diamond, or an extended diamond (a side of several blocks). On PTX a guarded instruction
// whose guard is false does nothing at all (no load, no store, no fault, its destination keeps
// its value), so the conversion is exact: each instruction of the taken side gets @[!]%p, each
// of the other side the opposite guard, H keeps them in order (taken side first) and falls into
// M. An instruction of a side that is already guarded, `@%q X`, gets the conjunction:
// `and.pred %t, [!]%p, [!]%q; @%t X`, and consecutive instructions with the same guard share
// %t while neither input is written in between (the seed's accumulator). A side that writes %p
// itself gets a copy of the guard taken in H (the seed refuses such sides). An instruction that
// cannot fault and writes only private temporaries of its side (registers written nowhere
// else, dead where H branches and at M) stays unguarded: no other lane reads them, and a
// guard would cost ptxas a select.
//
// Not predicable: CTA barriers, warp collectives and anything convergent (their lanes are the
// ones that branched), terminators inside a side (ret, exit, trap, a guarded bra), calls,
// opaque instructions, declarations and scope braces.
//
// The decision follows the seed's limit matrix mapped to PTX: the side sizes (instructions
// other than mov, plus the and.pred the guards need) against base-limit, or tex-limit when a
// side has texture or surface operations, or uniform-limit / uniform-tex-limit when the
// uniformity analysis proves the branch warp-uniform (then each warp runs one side only, and
// predication makes it run both). Sides with more than mov-threshold movs fall back on the
// combined-size check (combined-limit per side, threshold for both) and the fall-through
// analysis (a load or long-latency instruction among the first fallthrough-limit instructions
// of M). Sides with loads are limited by extended-limit and threshold. Both sides long-latency
// keeps the branch, and so does a branch on the thread index that splits at most one warp
// (threshold-check, ThreadIndexFacts.h). With --profile-use, the expected cost of both forms decides instead.
//
// Driver: regions are tried in post-order (inner regions before the regions around them), the
// CFG rebuilt after each conversion; then up to max-extra-passes more walks while something
// changed, the last of them (when max-extra-passes is 1) narrowed to near misses of the
// earlier walks (the seed's last-iteration narrowing).
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/ptx/Printer.h"

#include "GuardedCode.h"
#include "IfRegion.h"
#include "ThreadIndexFacts.h"

namespace ptxopt {

namespace {

struct Side {
  unsigned insts = 0;               // instructions other than mov, guard conjunctions included
  unsigned movs = 0;
  unsigned conjunctions = 0;  // and.pred instructions the already-guarded instructions need
  unsigned extraLatency = 0;  // long-latency instructions
  bool tex = false, load = false;
  bool writesGuard = false;
  std::string refusal;  // why it cannot be predicated; empty when it can
};

struct Region {
  IfRegion ir;
  Side taken, fall;  // the side the branch jumps to, the one it falls into (figures)
};

class Predication : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    baseLimit_ = k.getInt("base-limit");
    texLimit_ = k.getInt("tex-limit");
    uniformLimit_ = k.getInt("uniform-limit");
    uniformTexLimit_ = k.getInt("uniform-tex-limit");
    threshold_ = k.getInt("threshold");
    combinedLimit_ = k.getInt("combined-limit");
    fallthroughLimit_ = k.getInt("fallthrough-limit");
    extendedLimit_ = k.getInt("extended-limit");
    movThreshold_ = k.getInt("mov-threshold");
    maxChain_ = k.getInt("max-chain");
    extraLatencyCheck_ = k.getBool("extra-latency-check");
    speculate_ = k.getBool("speculate");
    thresholdCheck_ = k.getBool("threshold-check");
    am_ = &am;
    int64_t maxExtra = k.getInt("max-extra-passes");

    bool changed = false;
    lastIteration_ = false;
    nearMiss_.clear();
    refused_.clear();
    bool any = walk(f, am);
    changed |= any;
    for (int64_t pass = 0; any && pass < maxExtra; ++pass) {
      lastIteration_ = maxExtra == 1;
      any = walk(f, am);
      changed |= any;
    }
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  // One walk over the blocks, inner regions first. Returns whether anything was converted.
  bool walk(Function& f, FunctionAnalysisManager& am) {
    // (A walk that changed something left the analyses invalidated.)
    IfWalk w = ifWalk(am);
    threadIndex_.emplace(am.get<CfgAnalysis>().rpo, am.get<UniformityAnalysis>().everDivergent());
    pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
    removed_.clear();
    bool changed = false;
    for (BasicBlock* h : w.order) {
      if (removed_.count(h)) continue;
      std::optional<Region> r = findRegion(h);
      if (!r) continue;
      if (!decide(*r, w.mayDiverge(r->ir.branch))) continue;
      convert(*r);
      changed = true;
      buildCfg(f);
      if (speculate_) am.invalidate(PreservedAnalyses::none());  // the next region's temporaries need fresh liveness
    }
    if (changed) am.invalidate(PreservedAnalyses::none());
    return changed;
  }

  std::optional<Region> findRegion(BasicBlock* h) {
    std::optional<IfRegion> ir = findIfRegion(*f_, h, maxChain_);
    if (!ir) return std::nullopt;
    Region r;
    r.ir = std::move(*ir);
    RegId guard = r.ir.branch->guard();
    scan(r.taken, r.ir.taken, guard);
    scan(r.fall, r.ir.fall, guard);
    return r;
  }

  void scan(Side& s, const std::vector<BasicBlock*>& blocks, RegId guard) {
    // Guards already composed, as the conversion will compose them (the accumulator).
    ConjunctionCache<bool> cached;
    for (BasicBlock* b : blocks) {
      if (b->hasLabel() && pinned_.count(f_->labelName(b->label()))) {
        s.refusal = "a debug section or a branch table names " + b->name();
        return;
      }
      for (Instruction* i : b->insts()) {
        if (isChainJump(*b, *i)) continue;
        if (std::string why = whyNotPredicable(*i); !why.empty()) {
          s.refusal = why + " (line " + std::to_string(i->loc().line) + ")";
          return;
        }
        if (i->hasGuard()) cached.get(i->guard(), i->guardNegated(), [&] { return bool(++s.conjunctions); });
        i->forEachDefReg([&](RegId r) { s.writesGuard |= r == guard; });
        cached.after(*i);
        if (i->is(Opcode::Mov)) ++s.movs;
        else ++s.insts;
        // Long latency as the seed counts it: arithmetic the SFU or a multi-instruction
        // sequence serves (div, rem, sqrt, transcendentals), texture; loads are counted apart.
        // (Texture instructions are opaque in the opcode table today, so a side holding one is
        // refused above and the tex limits stay inert until the table models them.)
        bool tex = i->info().is(OpFlag::Texture);
        if ((i->info().is(OpFlag::LongLatency) && !i->info().readsMemory()) || tex) ++s.extraLatency;
        if (tex) s.tex = true;
        if (PtxasModel::isLoad(*i)) s.load = true;
      }
    }
    s.insts += s.conjunctions;
  }

  static std::string sideText(const char* name, const Side& s) {
    return std::string(name) + " " + std::to_string(s.insts) + " instr, " + std::to_string(s.movs) + " mov" +
           (s.load ? ", loads" : "") + (s.tex ? ", tex" : "") + (s.extraLatency ? ", long-latency" : "");
  }

  // The cost model. Remarks give the figures of every decision.
  bool decide(const Region& r, bool isDivergent) {
    const BasicBlock* h = r.ir.header;
    std::string where = r.ir.shape + " at line " + std::to_string(r.ir.branch->loc().line) + " (" +
                        sideText("taken", r.taken) + "; " + sideText("fall-through", r.fall) + ")";
    auto refuse = [&](const std::string& reason, const std::string& text) {
      // Once per branch, however many walks see it.
      if (refused_.insert(r.ir.branch).second) {
        ctx_->count("refused-" + reason);
        ctx_->remark(h, "keep", where + ": " + text, figures(r, isDivergent));
      }
      return false;
    };
    for (const Side* s : {&r.taken, &r.fall})
      if (!s->refusal.empty()) return refuse("unpredicable", "not predicable: " + s->refusal);
    if (lastIteration_ && !nearMiss_.count(r.ir.branch))
      return refuse("last-iteration", "the last walk only retries near misses");
    unsigned nt = r.taken.insts, nf = r.fall.insts, big = std::max(nt, nf), both = nt + nf;
    bool accept;
    std::string why;
    if (const BranchCounts* c = usableCounts(*ctx_, *r.ir.branch)) {
      double predCost = both + (r.taken.writesGuard || r.fall.writesGuard ? 1 : 0);
      ProfileDecision d = decideByProfile(ctx_->ptxas(), *c, nt, nf, predCost, "predicated");
      accept = d.convert;
      why = std::move(d.why);
      ctx_->count(accept ? "profile-accepted" : "profile-refused");
    } else {
      if (extraLatencyCheck_ && r.taken.extraLatency && r.fall.extraLatency)
        return refuse("extra-latency", "both sides hold long-latency instructions");
      if (thresholdCheck_ && threadIndex_->thresholdBranch(*r.ir.branch))
        return refuse("threshold", "the branch compares the thread index with a warp-uniform bound: at most one warp of a CTA "
                                   "splits on it, the others go one way (threshold-check)");
      if (thresholdCheck_ && threadIndex_->highTidBitsBranch(*r.ir.branch))
        return refuse("threshold", "the branch tests only bits 5 and up of the thread index, which the lanes of a warp share: "
                                   "no warp splits on it (threshold-check)");
      bool tex = r.taken.tex || r.fall.tex;
      int64_t limit = isDivergent ? (tex ? texLimit_ : baseLimit_) : (tex ? uniformTexLimit_ : uniformLimit_);
      std::string limitName = isDivergent ? (tex ? "tex-limit" : "base-limit") : (tex ? "uniform-tex-limit" : "uniform-limit");
      if (r.taken.load || r.fall.load) {
        accept = big <= extendedLimit_ && both <= threshold_;
        why = "sides with loads: larger side " + std::to_string(big) + " against extended-limit " +
              std::to_string(extendedLimit_) + ", both " + std::to_string(both) + " against threshold " +
              std::to_string(threshold_);
        if (!accept && big <= extendedLimit_ + 2 && both <= threshold_ + 2) nearMiss_.insert(r.ir.branch);
      } else if (r.taken.movs <= movThreshold_ && r.fall.movs <= movThreshold_) {
        accept = big <= limit;
        why = std::string(divergenceWord(isDivergent, *r.ir.branch)) + " branch: larger side " + std::to_string(big) + " against " + limitName + " " +
              std::to_string(limit);
        if (!accept && big <= limit + 2) nearMiss_.insert(r.ir.branch);
      } else if (big > combinedLimit_ || both > threshold_) {
        accept = false;
        why = "mov-heavy sides: larger side " + std::to_string(big) + " against combined-limit " +
              std::to_string(combinedLimit_) + ", both " + std::to_string(both) + " against threshold " +
              std::to_string(threshold_);
      } else {
        accept = fallThroughHasLatency(r.ir.merge);
        why = std::string("mov-heavy sides within the combined limits; ") +
              (accept ? "a load or long-latency instruction follows the merge within "
                      : "nothing long-latency follows the merge within ") +
              std::to_string(fallthroughLimit_) + " instructions";
      }
    }
    if (!accept) return refuse("cost", why);
    ctx_->count("converted");
    ctx_->count("converted-" + r.ir.shape);
    ctx_->remark(h, "convert", where + ": " + why, figures(r, isDivergent));
    return true;
  }

  std::vector<std::pair<std::string, double>> figures(const Region& r, bool isDivergent) const {
    return {{"line", double(r.ir.branch->loc().line)},
            {"taken", double(r.taken.insts)},
            {"fall", double(r.fall.insts)},
            {"divergent", isDivergent ? 1.0 : 0.0}};
  }

  bool fallThroughHasLatency(const BasicBlock* m) const {
    int64_t seen = 0;
    for (const Instruction* i : m->insts()) {
      if (i->info().isPseudo()) continue;
      if (seen++ >= fallthroughLimit_) break;
      if (i->info().is(OpFlag::LongLatency) || PtxasModel::isLoad(*i))
        return true;
    }
    return false;
  }

  // The instructions of a side that may run unguarded, for every lane: unguarded, unable to
  // fault or have an effect, and writing only private temporaries of the side, registers
  // written nowhere else in the function and live neither where H branches nor into M. A lane
  // that does not take the side then never reads what they wrote: in the branching program it
  // would reach a read only through a definition, and all of them are in the side. Guarded,
  // such a temporary costs ptxas a select to keep the other lanes' old value.
  std::unordered_set<const Instruction*> privateTemporaries(const Region& r) {
    std::unordered_set<const Instruction*> out;
    if (!speculate_) return out;
    std::unordered_set<const BasicBlock*> side;
    for (const auto* s : {&r.ir.taken, &r.ir.fall})
      for (const BasicBlock* b : *s) side.insert(b);
    const DefinitionSites defs(*f_);
    const Liveness& lv = am_->get<LivenessAnalysis>();
    auto inSide = [&](const BasicBlock* b) { return side.count(b) != 0; };
    for (const auto* s : {&r.ir.taken, &r.ir.fall})
      for (const BasicBlock* b : *s)
        for (const Instruction* i : b->insts())
          if (!isChainJump(*b, *i) &&
              writesOnlyPrivateTemporaries(*i, defs, inSide, {&lv.liveOut[r.ir.header->id()], &lv.liveIn[r.ir.merge->id()]}))
            out.insert(i);
    return out;
  }

  void convert(const Region& r) {
    const std::unordered_set<const Instruction*> unguarded = privateTemporaries(r);
    BasicBlock* h = r.ir.header;
    Instruction* bra = r.ir.branch;
    RegId guard = bra->guard();
    bool takenNeg = bra->guardNegated();
    std::vector<Instruction*> out(h->insts().begin(), h->insts().end() - 1);  // without the branch
    if (r.taken.writesGuard || r.fall.writesGuard) {
      // A side writes the branch's predicate: both sides read a copy taken here.
      RegId copy = f_->addRegister(ScalarType::Pred, "%pq");
      out.push_back(buildInstruction(*f_, Opcode::Mov, ScalarType::Pred, {Operand::reg(copy), Operand::reg(guard)}, bra));
      guard = copy;
      ctx_->count("guard-copies");
    }
    // The first write in the line of a register dead where H branches may also run for every
    // lane (FirstWrites).
    FirstWrites firstWrites(am_->get<LivenessAnalysis>().liveOut[h->id()]);
    auto emitSide = [&](const std::vector<BasicBlock*>& blocks, bool neg) {
      GuardedLine line(*f_, out, guard, neg, "%pq");
      for (BasicBlock* b : blocks)
        for (Instruction* i : b->insts()) {
          if (isChainJump(*b, *i)) continue;
          if (!i->hasGuard() && (unguarded.count(i) || (speculate_ && firstWrites.mayRunUnguarded(*i)))) {
            ctx_->count("speculated-instructions");
            line.addUnguarded(i);
          } else {
            line.add(i);
          }
          firstWrites.after(*i);
          ctx_->count("predicated-instructions");
        }
      if (line.conjunctions()) ctx_->count("guard-conjunctions", line.conjunctions());
    };
    emitSide(r.ir.taken, takenNeg);
    emitSide(r.ir.fall, !takenNeg);
    replaceIfRegion(*f_, r.ir, std::move(out), removed_);
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_set<const BasicBlock*> removed_;
  std::unordered_set<const Instruction*> nearMiss_, refused_;
  bool lastIteration_ = false;
  int64_t baseLimit_ = 0, texLimit_ = 0, uniformLimit_ = 0, uniformTexLimit_ = 0, threshold_ = 0, combinedLimit_ = 0,
          fallthroughLimit_ = 0, extendedLimit_ = 0, movThreshold_ = 0, maxChain_ = 0;
  bool extraLatencyCheck_ = true, speculate_ = true, thresholdCheck_ = true;
  std::optional<ThreadIndexFacts> threadIndex_;  // of the current walk
  FunctionAnalysisManager* am_ = nullptr;
};

}  // namespace

PassInfo predicationPassInfo() {
  return {"predication",
          "if-conversion: short triangles and diamonds (extended and nested too) become guarded straight-line code",
          "000, OriDoPredication (if-conversion)",
          {
              {"base-limit", KnobType::Int, "8", "largest side (instructions other than mov) for a branch that may diverge"},
              {"tex-limit", KnobType::Int, "10", "the same when a side has texture or surface instructions"},
              {"uniform-limit", KnobType::Int, "2", "largest side for a warp-uniform branch (each warp runs one side only)"},
              {"uniform-tex-limit", KnobType::Int, "2", "the same with texture or surface instructions"},
              {"mov-threshold", KnobType::Int, "4", "sides with more movs than this skip the limit matrix for the combined-size check"},
              {"combined-limit", KnobType::Int, "12", "largest side in the combined-size check"},
              {"threshold", KnobType::Int, "20", "largest sum of both sides (combined-size check, sides with loads)"},
              {"extended-limit", KnobType::Int, "10", "largest side when a side loads from memory"},
              {"fallthrough-limit", KnobType::Int, "4", "instructions of the merge block searched for a load or long-latency instruction"},
              {"max-chain", KnobType::Int, "4", "most blocks in one side (extended diamonds)"},
              {"extra-latency-check", KnobType::Bool, "true", "keep the branch when both sides hold long-latency instructions"},
              {"threshold-check", KnobType::Bool, "true",
               "without a profile, keep a branch that compares the thread index with a warp-uniform bound (at most one warp of a CTA "
               "splits on it) or tests only bits 5 and up of it (none does)"},
              {"speculate", KnobType::Bool, "true",
               "leave a side's private temporaries, and the first write of a register dead at the branch, unguarded (only values that leave the side, memory and effects take the guard)"},
              {"max-extra-passes", KnobType::Int, "1", "walks after the first while something changed (1: the last one retries near misses only)"},
          },
          [] { return std::make_unique<Predication>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/false,
          /*skipsScopedFunctions=*/true};
}

}  // namespace ptxopt
