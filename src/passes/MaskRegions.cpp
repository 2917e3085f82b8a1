// mask-regions: whole single-entry, single-exit regions of nested divergent if/else become
// straight-line code under predicates that play the role of a SIMD mask stack (seed 004;
// docs/passes/mask-regions.md).
//
// A region starts at a block E that ends in a divergent `@[!]%c bra` and ends at E's immediate
// post-dominator X. Each block of it gets a mask, the lanes that run it in the branching
// program; its instructions take the mask as guard, and the blocks become one straight line
// (with uniform skips over sides no lane runs). The plan of that line, and the checks a region
// must pass to have one, are MaskRegionsPlan.{h,cpp}; what a plan costs against the branches,
// what ptxas would do with them itself, and the decision are MaskRegionsCost.{h,cpp}.
//
// This file is the pass: the walk over the regions (outer ones first), the knobs, the counters
// and remarks of each decision, and carrying a plan out (new mask registers, skip labels and
// blocks, the region's blocks replaced in the layout). It keeps, with a `keep` remark and a
// `refused-REASON` count, the regions that buildPlan refuses (barriers, warp collectives,
// calls, exits or loops inside, branch tables or debug sections naming a label inside,
// warp-uniform entry branches) and those decideRegion keeps (the knobs' limits, the checks, the
// expected-cost model); a region the model keeps keeps its inner branches (keep-inner). The
// divergent loops (knob `loops`) are MaskLoops.cpp's.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"
#include "ptxopt/passes/PtxasModel.h"

#include "GuardedCode.h"
#include "IfRegion.h"
#include "MaskLoops.h"
#include "MaskRegionsCost.h"
#include "MaskRegionsPlan.h"
#include "ThreadIndexFacts.h"

namespace ptxopt {

namespace {

using namespace maskregions;

class MaskRegions : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    costKnobs_.maxSize = k.getInt("max-size");
    costKnobs_.maxDepth = k.getInt("max-depth");
    costKnobs_.maxLiveMasks = k.getInt("max-live-masks");
    costKnobs_.maxExtra = k.getInt("max-extra");
    bosccMin_ = k.getInt("boscc-min");
    costKnobs_.treeDivergenceCost = k.getFloat("tree-divergence-cost");
    costKnobs_.prior = k.getFloat("divergence-prior");
    costKnobs_.priorMargin = k.getFloat("prior-margin");
    keepInner_ = k.getBool("keep-inner");
    costKnobs_.ptxasTriangleCheck = k.getBool("ptxas-triangle-check");
    costKnobs_.extraLatencyCheck = k.getBool("extra-latency-check");
    costKnobs_.loadBranchCheck = k.getBool("load-branch-check");
    costKnobs_.thresholdCheck = k.getBool("threshold-check");
    loops_ = k.getBool("loops");
    speculate_ = k.getBool("speculate");
    syncVotes_ = canUseSyncVotes(*f.parent());
    refused_.clear();
    skipBranches_.clear();

    bool changed = false;
    // Outer regions first. One walk converts every region that does not overlap a region it
    // already converted, on the analyses computed before the walk: a conversion replaces a
    // single-entry, single-exit piece by straight-line code with the same per-lane effects, so
    // the facts outside it (dominance, post-dominance, uniformity, what each lane reads) stay
    // true. The next walk sees the new CFG; each conversion removes a conditional branch. Only
    // a branch deferred in this walk (its region overlapped a converted one, or it had none) is
    // weighed anew (the others were converted or refused for good), so without one there is no
    // next walk.
    for (bool again = true; again;) {
      again = false;
      bool converted = false, deferred = false;
      const CfgInfo& cfg = am.get<CfgAnalysis>();
      const DominatorTree& dom = am.get<DominatorAnalysis>();
      const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();
      const UniformityInfo& uni = am.get<UniformityAnalysis>();
      const Liveness& lv = am.get<LivenessAnalysis>();
      // Both computed when a plan first needs them, and before the walk's first conversion.
      const LazyDefinitionSites defSites(f);
      threadIndex_.reset();
      uni_ = &uni;
      pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
      touched_.clear();
      const std::vector<size_t> layout = layoutByRpo(f, cfg);
      PlanScratch scratch(cfg.size());
      PlanInputs inputs{f, cfg, dom, pdt, uni, lv, defSites, pinned_, touched_, layout, scratch, speculate_, syncVotes_, bosccMin_};
      for (uint32_t e = 0; e < cfg.size(); ++e) {
        BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[e]);
        if (touched_.count(E)) continue;
        Instruction* br = conditionalBranch(*E);
        if (!br || refused_.count(br) || skipBranches_.count(br)) continue;
        Refusal refusal;
        std::optional<Plan> plan = buildPlan(e, inputs, refusal);
        if (!plan) {
          if (!refusal.reason.empty()) refuse(br, E, refusal.reason, refusal.text);
          deferred |= refusal.deferred;
          continue;
        }
        notePtxasFigures(*plan, cfg, ctx.ptxas());
        if (!decide(*plan, cfg)) continue;
        for (uint32_t b : plan->order) touched_.insert(cfg.rpo[b]);
        defSites.get();  // (threadIndex_ is, by decide)
        carryOut(*plan, cfg);
        changed = converted = true;
      }
      if (converted) {
        buildCfg(f);
        am.invalidate(PreservedAnalyses::none());
      }
      again = converted && deferred;
    }
    if (loops_ && syncVotes_ >= 0 && maskDivergentLoops(f, am, ctx, syncVotes_ == 1, costKnobs_.maxSize))
      changed = true;
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  // How sides are skipped: 1 with activemask and vote.sync (PTX 6.2), 0 with the old
  // `vote.any.pred` (older PTX, and only below sm_70, which no longer accepts it), -1 not at all.
  static int canUseSyncVotes(const Module& m) {
    if (m.versionMajor > 6 || (m.versionMajor == 6 && m.versionMinor >= 2)) return 1;
    for (uint32_t t : m.targets) {
      std::string_view s = m.str(t);
      if (s.substr(0, 3) != "sm_") continue;
      int sm = 0;
      for (char c : s.substr(3)) {
        if (c < '0' || c > '9') break;
        sm = sm * 10 + (c - '0');
      }
      return sm < 70 ? 0 : -1;
    }
    return -1;
  }

  void refuse(const Instruction* br, const BasicBlock* E, const std::string& reason, const std::string& text,
              std::vector<std::pair<std::string, double>> figures = {}) {
    if (!refused_.insert(br).second) return;
    ctx_->count("refused-" + reason);
    if (ctx_->wantsRemarks())
      ctx_->remark(E, "keep", "region at line " + std::to_string(br->loc().line) + ": " + text, std::move(figures));
  }

  std::vector<std::pair<std::string, double>> figures(const Plan& p, const Instruction* br) const {
    return {{"line", double(br->loc().line)},      {"size", double(p.size)},
            {"depth", double(p.depth)},            {"branches", double(p.branches)},
            {"extra", double(p.extra)},            {"skips", double(p.skips)},
            {"live-masks", double(p.liveMasks)},   {"ptxas-kept", double(p.ptxasKept)},
            {"merged-defs", double(p.mergedDefs)}, {"ptxas-kept-with-loads", double(p.ptxasKeptLoads)},
            {"load-blocks", double(p.loadBlocks)},   {"tree", p.tree ? 1.0 : 0.0}};
  }

  static std::string planText(const Plan& p) {
    return std::to_string(p.size) + " instructions, depth " + std::to_string(p.depth) + ", " +
           std::to_string(p.branches) + " conditional branches, " + std::to_string(p.extra) + " added (" +
           std::to_string(p.skips) + " skips), " + std::to_string(p.liveMasks) + " masks live at most";
  }

  // Weighs the plan (decideRegion), counts and remarks the decision; a region the
  // expected-cost model keeps keeps its inner branches too (keep-inner).
  bool decide(const Plan& p, const CfgInfo& cfg) {
    BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[p.order[0]]);
    Instruction* br = conditionalBranch(*E);
    const bool remarks = ctx_->wantsRemarks();
    if (!threadIndex_) threadIndex_.emplace(cfg.rpo, uni_->everDivergent());
    Decision d = decideRegion(p, cfg, *uni_, *threadIndex_, *ctx_, costKnobs_);
    if (d.model) ctx_->count(std::string(d.model) + (d.convert ? "-accepted" : "-refused"));
    if (!d.convert) {
      if (remarks) refuse(br, E, d.reason, planText(p) + ": " + d.why, figures(p, br));
      else refuse(br, E, d.reason, {});
      if (d.model && keepInner_)
        for (uint32_t b : p.order)
          if (b != p.order[0])
            if (const Instruction* ib = conditionalBranch(*const_cast<BasicBlock*>(cfg.rpo[b]))) refused_.insert(ib);
      return false;
    }
    ctx_->count("converted");
    ctx_->count("converted-depth-" + std::to_string(std::min(p.depth, 4u)));
    if (p.skips) ctx_->count("skips", p.skips);
    if (p.uniformSkips) ctx_->count("uniform-skips", p.uniformSkips);
    if (p.speculated) ctx_->count("speculated-instructions", p.speculated);
    if (remarks)
      ctx_->remark(E, "convert", "region at line " + std::to_string(br->loc().line) + ": " + planText(p) + ": " + d.why,
                   figures(p, br));
    return true;
  }

  Instruction* make(Opcode op, ScalarType t, const Instruction& at) { return buildInstruction(*f_, op, t, {}, &at); }

  void carryOut(Plan& p, const CfgInfo& cfg) {
    BasicBlock* E = const_cast<BasicBlock*>(cfg.rpo[p.order[0]]);
    Instruction* br = conditionalBranch(*E);
    uint32_t xIdx = 0;
    {
      // X: the block every edge that leaves the region goes to.
      std::unordered_set<uint32_t> in(p.order.begin(), p.order.end());
      for (uint32_t b : p.order)
        for (uint32_t s : cfg.succ[b])
          if (!in.count(s)) xIdx = s;
    }
    BasicBlock* X = const_cast<BasicBlock*>(cfg.rpo[xIdx]);
    auto reg = [&](int v) -> RegId {
      Value& val = p.values[v];
      if (val.existing != kNoReg) return val.existing;
      if (val.fresh == kNoReg) val.fresh = f_->addRegister(val.type, val.type == ScalarType::Pred ? "%mask" : "%lanes");
      return val.fresh;
    };
    auto operand = [&](const MRef& m) {
      Operand o = Operand::reg(reg(m.id));
      if (m.neg) o.flags |= OperandFlag::Negated;
      return o;
    };
    std::vector<uint32_t> labelIds(p.labels, 0);
    std::vector<BasicBlock*> labelBlocks(p.labels, nullptr);
    for (int l = 0; l < p.labels; ++l) {
      labelBlocks[l] = f_->createBlock();
      labelIds[l] = f_->addLabel(labelBlocks[l], "$L__mask_skip");
    }

    std::vector<BasicBlock*> newBlocks{E};
    std::vector<Instruction*> body;  // the steps start with E's instructions (without its branch)
    BasicBlock* cur = E;
    auto flush = [&] {
      cur->insts().clear();
      for (Instruction* i : body) cur->append(i);
      body.clear();
    };
    for (const Step& s : p.steps) {
      const Instruction& at = *s.inst;
      switch (s.kind) {
        case Step::Kind::Orig:
          if (!s.guard.all()) s.inst->setGuard(reg(s.guard.id), s.guard.neg);
          body.push_back(s.inst);
          if (!s.guard.all()) ctx_->count("predicated-instructions");
          break;
        case Step::Kind::And:
        case Step::Kind::Or: {
          Instruction* i = make(s.kind == Step::Kind::And ? Opcode::And : Opcode::Or, ScalarType::Pred, at);
          i->addOperand(Operand::reg(reg(s.dst)));
          i->addOperand(operand(s.a));
          i->addOperand(operand(s.b));
          body.push_back(i);
          break;
        }
        case Step::Kind::Mov: {
          Instruction* i = make(Opcode::Mov, ScalarType::Pred, at);
          i->addOperand(Operand::reg(reg(s.dst)));
          i->addOperand(operand(s.a));
          body.push_back(i);
          break;
        }
        case Step::Kind::Activemask: {
          Instruction* i = make(Opcode::Activemask, ScalarType::B32, at);
          i->addOperand(Operand::reg(reg(s.dst)));
          body.push_back(i);
          break;
        }
        case Step::Kind::Vote: {
          body.push_back(buildVoteAny(*f_, reg(s.dst), operand(s.a), s.b.id >= 0 ? reg(s.b.id) : kNoReg, &at));
          break;
        }
        case Step::Kind::SkipBranch: {
          Instruction* i = buildBra(*f_, labelIds[s.label], reg(s.guard.id), s.guard.neg, &at);
          i->addMod(Mod::Uni);
          skipBranches_.insert(i);
          body.push_back(i);
          flush();
          cur = f_->createBlock();  // the side, entered by falling through
          newBlocks.push_back(cur);
          break;
        }
        case Step::Kind::Label:
          flush();
          cur = labelBlocks[s.label];
          newBlocks.push_back(cur);
          break;
      }
    }
    // The region's blocks leave the layout; the new ones take E's place, and the last falls
    // into X or jumps to it.
    std::unordered_set<const BasicBlock*> gone;
    for (uint32_t b : p.order)
      if (b != p.order[0]) gone.insert(cfg.rpo[b]);
    auto& blocks = f_->blocks();
    blocks.erase(std::remove_if(blocks.begin(), blocks.end(), [&](BasicBlock* b) { return gone.count(b) != 0; }),
                 blocks.end());
    size_t at = std::find(blocks.begin(), blocks.end(), E) - blocks.begin();
    blocks.insert(blocks.begin() + at + 1, newBlocks.begin() + 1, newBlocks.end());
    size_t after = at + newBlocks.size();
    if (after >= blocks.size() || blocks[after] != X) {
      if (!X->hasLabel()) f_->addLabel(X, "$L__mask_join");
      Instruction* j = buildBra(*f_, X->label(), kNoReg, false, br);
      j->addMod(Mod::Uni);
      body.push_back(j);
    }
    flush();
    for (const BasicBlock* b : gone) const_cast<BasicBlock*>(b)->insts().clear();
    ctx_->count("branches-removed", p.branches);
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_set<const Instruction*> refused_, skipBranches_;
  std::unordered_set<const BasicBlock*> touched_;  // blocks of the regions converted in this walk
  CostKnobs costKnobs_;
  int64_t bosccMin_ = 0;
  bool keepInner_ = true;
  const UniformityInfo* uni_ = nullptr;  // of the current walk
  bool loops_ = false;
  std::optional<ThreadIndexFacts> threadIndex_;  // of the current walk
  bool speculate_ = true;
  int syncVotes_ = 1;
};

}  // namespace

PassInfo maskRegionsPassInfo() {
  return {"mask-regions",
          "nested divergent if/else regions become straight-line code under mask predicates (a mask stack), "
          "with uniform skips over sides no lane runs",
          "004, SPMD code generation with execution masks",
          {
              {"max-size", KnobType::Int, "48", "most instructions in a region (E's own and the jumps not counted)"},
              {"max-depth", KnobType::Int, "8", "deepest nesting of conditional branches in a region"},
              {"max-live-masks", KnobType::Int, "5", "most mask predicates the straight-line code keeps live at once"},
              {"max-extra", KnobType::Int, "24", "most instructions a region may add (mask arithmetic, votes, skip branches)"},
              {"boscc-min", KnobType::Int, "40", "smallest side (instructions) that gets a vote and a uniform skip; 0: none but uniform branches' sides"},
              {"speculate", KnobType::Bool, "true", "leave private temporaries of a block, and the first write of a register dead into the region, unguarded (only values that leave the block, memory and effects take the mask)"},
              {"extra-latency-check", KnobType::Bool, "true", "without a profile, keep a region when both ways of its branch hold long-latency arithmetic (div, rem, sqrt, transcendentals)"},
              {"threshold-check", KnobType::Bool, "true", "without a profile, keep a region whose branch compares the thread index with a warp-uniform bound (at most one warp of a CTA splits on it)"},
              {"load-branch-check", KnobType::Bool, "true", "keep a region in which ptxas would predicate every branch but those around blocks with two or more loads: it branches around those blocks again once they are guarded"},
              {"loops", KnobType::Bool, "false", "loops whose exit diverges become uniform loops under a mask (vote.sync.any on the back edge)"},
              {"tree-divergence-cost", KnobType::Float, "1.5", "with a profile: ptxas.divergence-cost in a region no two of whose paths meet before its end (an else-if chain, a tree of ifs)"},
              {"divergence-prior", KnobType::Float, "0.5", "without a profile: the share of the executions of a branch that may diverge in which it splits, for the expected-cost model; negative: no model, convert what the limits allow"},
              {"prior-margin", KnobType::Float, "0.02", "without a profile: the share of the branching cost by which the straight-line form must be expected cheaper (the prior is a guess; a closer call keeps what ptxas would do)"},
              {"keep-inner", KnobType::Bool, "true", "a region the expected-cost model keeps keeps its inner branches too (no conversion of its inner regions one by one)"},
              {"ptxas-triangle-check", KnobType::Bool, "true", "keep a one-branch region whose sides ptxas predicates itself when it defines a register live after it (ptxas makes a SEL of the guarded definition)"},
          },
          [] { return std::make_unique<MaskRegions>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/false,
          /*skipsScopedFunctions=*/true};
}

}  // namespace ptxopt
