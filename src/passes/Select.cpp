// select: if-conversion to unguarded code and selp (issue #11; docs/passes/select.md).
//
// A triangle or diamond (or an extended one: a side may be a chain of blocks, see IfRegion.h)
// whose sides only compute registers with speculatable instructions (the opcode table's
// Speculatable: no memory, no effect beyond the results, no fault whatever the operands) runs
// both sides for every lane and picks each result with the branch's predicate:
//
//   @%p bra T;  F: x = f(..)  bra M;  T: x = g(..)  M: ..
//     becomes
//   xf = f(..);  xt = g(..);  selp x, xt, xf, %p;  M: ..
//
// A register a side writes is renamed to a fresh one for that side when its old value is still
// wanted, by the other side or after the merge, so running a side on lanes that would not have
// run it clobbers nothing. The branch's own predicate is always renamed (the selects read it).
// Temporaries that die inside the side keep their names. After both sides, one `selp.bN` per
// register that a side writes and that is live into M picks the taken side's value (or the
// old value, when only the other side writes it); a predicate register takes two guarded
// `mov.pred` instead (selp has no .pred form).
//
// The difference from `predication`: a guarded instruction is issued by every lane of the warp
// either way, and ptxas keeps guarded PTX as guarded SASS instruction by instruction; selp
// lets it compute both sides as ordinary code and merge with SEL, with nothing guarded. The
// price is the same: a warp that would have run one side runs both. So the decision is the
// branch's uniformity (a warp-uniform branch runs one side per warp), the size of both sides
// and the number of selects, or, with --profile-use, the expected cost of both forms.
//
// Regions are tried in post-order, inner ones first; an outer region then sees the flattened
// inner one as straight-line code of its side.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/passes/Passes.h"

#include "GuardedCode.h"
#include "IfRegion.h"

namespace ptxopt {

namespace {

struct SideFacts {
  unsigned insts = 0;        // instructions, long-latency arithmetic weighted
  unsigned longLatency = 0;  // div, rem, sqrt, transcendentals
  unsigned guarded = 0;      // instructions with effects, kept under the side's guard
  std::vector<RegId> defs;   // registers written, each once, in order of first write
  std::vector<RegId> uses;   // registers read (a side is a few instructions: a list, not a set)
  std::string refusal;       // why the side cannot be speculated; empty when it can
};

class Select : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    limit_ = k.getInt("limit");
    uniformLimit_ = k.getInt("uniform-limit");
    maxSelects_ = k.getInt("max-selects");
    longLatencyWeight_ = k.getInt("long-latency-weight");
    maxChain_ = k.getInt("max-chain");
    extraLatencyCheck_ = k.getBool("extra-latency-check");
    guardEffects_ = k.getBool("guard-effects");
    guardEffectsInTriangles_ = k.getBool("guard-effects-in-triangles");

    IfWalk w = ifWalk(am);
    pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
    removed_.clear();
    // Liveness is brought up to date after each conversion from the header it rewrote (exact;
    // computed afresh where a register stopped being live there). Recomputing it for the whole
    // function after each conversion was 0.08 s of select's 0.14 s on cub_device_histogram
    // (192 conversions).
    Liveness lv = am.get<LivenessAnalysis>();
    bool changed = false;
    for (BasicBlock* h : w.order) {
      if (removed_.count(h)) continue;
      std::optional<IfRegion> r = findIfRegion(f, h, maxChain_);
      if (!r) continue;
      // A conversion renames and merges, but the values every block sees stay the same, so
      // uniformity holds.
      if (!tryConvert(*r, w.mayDiverge(r->branch), lv)) continue;
      // The edges: all of them once (as buildCfg orders them), then only around each collapsed
      // region (rebuilding all of them after each conversion was 3% of ptxopt -O2 on thrust_sort).
      if (changed) {
        std::vector<BasicBlock*> gone(r->taken.begin(), r->taken.end());
        gone.insert(gone.end(), r->fall.begin(), r->fall.end());
        updateAfterCollapse(f, h, gone);
      } else {
        buildCfg(f);
      }
      changed = true;
      am.invalidate(PreservedAnalyses::none());
      if (!updateLivenessAfterBlockChange(lv, *h)) {
        ctx.count("liveness-recomputed");
        lv = am.get<LivenessAnalysis>();
      }
    }
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  static bool mergeableType(const RegInfo& ri) {
    if (ri.vec != 0) return false;
    if (ri.type == ScalarType::Pred) return true;
    unsigned bits = typeBits(ri.type);
    return bits == 16 || bits == 32 || bits == 64;
  }

  SideFacts scan(const std::vector<BasicBlock*>& blocks) const {
    SideFacts s;
    for (BasicBlock* b : blocks) {
      if (b->hasLabel() && pinned_.count(f_->labelName(b->label()))) {
        s.refusal = "a debug section or a branch table names " + b->name();
        return s;
      }
      for (Instruction* i : b->insts()) {
        if (isChainJump(*b, *i)) continue;
        auto at = [&] { return " (line " + std::to_string(i->loc().line) + ")"; };  // for a refusal
        if (i->info().isPseudo()) {
          s.refusal = "a declaration or scope brace" + at();
          return s;
        }
        if (i->hasGuard()) {
          s.refusal = "an already-guarded instruction" + at();
          return s;
        }
        bool guard = false;
        if (!i->isSpeculatable()) {
          std::string why = whyNotPredicable(*i);
          if (!guardEffects_ || !why.empty()) {
            s.refusal = why.empty() ? "`" + std::string(i->info().name) + "` is not speculatable" + at() : why + at();
            return s;
          }
          guard = true;
        }
        bool ok = true;
        if (i->numDefOperands() == 1)
          i->visitLeaves(i->operand(0), [&](const Operand& o) {
            if (!o.isReg() || o.component() != Component::None || !mergeableType(f_->reg(static_cast<RegId>(o.id))))
              ok = false;
          });
        if (i->numDefOperands() > 1 || (!guard && i->numDefOperands() == 0) || !ok) {
          s.refusal = "a result that cannot be renamed or merged" + at();
          return s;
        }
        i->forEachUseReg([&](RegId r) { s.uses.push_back(r); });
        i->forEachDefReg([&](RegId r) {
          if (std::find(s.defs.begin(), s.defs.end(), r) == s.defs.end()) s.defs.push_back(r);
        });
        s.guarded += guard;
        // Long-latency arithmetic (SFU, or a sequence of SASS instructions) weighs more; a load
        // is one instruction whichever way it is issued.
        bool slow = i->info().is(OpFlag::LongLatency) && !i->info().readsMemory();
        s.longLatency += slow;
        s.insts += slow ? unsigned(longLatencyWeight_) : 1;
      }
    }
    return s;
  }

  // Whether x is live into b; registers added since the liveness was computed (renamed side
  // values, local to a converted header) are not.
  static bool liveInto(const Liveness& lv, const BasicBlock& b, RegId x) {
    const BitVector& in = lv.liveIn[b.id()];
    return x < in.size() && in.test(x);
  }

  bool tryConvert(const IfRegion& r, bool isDivergent, const Liveness& lv) {
    SideFacts t = scan(r.taken), fl = scan(r.fall);
    // The registers to merge: written by a side and live into M.
    std::vector<RegId> merged;
    for (const SideFacts* s : {&t, &fl})
      for (RegId x : s->defs)
        if (liveInto(lv, *r.merge, x) && std::find(merged.begin(), merged.end(), x) == merged.end())
          merged.push_back(x);
    unsigned selects = 0;
    for (RegId x : merged) {
      bool both = std::count(t.defs.begin(), t.defs.end(), x) && std::count(fl.defs.begin(), fl.defs.end(), x);
      selects += f_->reg(x).type == ScalarType::Pred ? (both ? 2 : 1) : 1;
    }
    // The remark's description of the region (spelled out only for --remarks).
    auto remark = [&](const char* decision, const std::string& text) {
      if (!ctx_->wantsRemarks()) return;
      auto side = [](const SideFacts& s) {
        return std::to_string(s.insts) + " instr" + (s.guarded ? " (" + std::to_string(s.guarded) + " guarded)" : "");
      };
      std::string where = r.shape + " at line " + std::to_string(r.branch->loc().line) + " (taken " + side(t) +
                          ", fall-through " + side(fl) + ", " + std::to_string(selects) + " select)";
      ctx_->remark(r.header, decision, where + ": " + text,
                   {{"line", double(r.branch->loc().line)},
                    {"taken", double(t.insts)},
                    {"fall", double(fl.insts)},
                    {"selects", double(selects)},
                    {"divergent", isDivergent ? 1.0 : 0.0}});
    };
    auto refuse = [&](const std::string& reason, const std::string& text) {
      ctx_->count("refused-" + reason);
      remark("keep", text);
      return false;
    };
    for (const SideFacts* s : {&t, &fl})
      if (!s->refusal.empty()) return refuse("unspeculatable", "cannot speculate: " + s->refusal);
    if ((t.guarded || fl.guarded) && !guardEffectsInTriangles_ && (r.taken.empty() || r.fall.empty()))
      return refuse("guarded-triangle", "a triangle with instructions that need a guard (guard-effects-in-triangles is off)");
    // ptxas if-converts small two-way regions itself (guarded instructions, no branch, no select).
    // Where a side keeps guarded instructions anyway, the select form is that same predicated code
    // plus its selects, whatever the branch does at run time.
    if ((t.guarded || fl.guarded) && selects > 0 && ctx_->ptxas().predicatesItself(t.insts, fl.insts))
      return refuse("ptxas-predicates", "ptxas predicates sides of at most " + std::to_string(ctx_->ptxas().sideLimit()) +
                                            " instructions itself (ptxas.side-limit) and a side keeps its guarded "
                                            "instructions: the selects would only add instructions");
    const BranchCounts* counts = usableCounts(*ctx_, *r.branch);
    if (!counts && extraLatencyCheck_ && t.longLatency && fl.longLatency)
      return refuse("extra-latency", "both sides hold long-latency arithmetic");
    unsigned both = t.insts + fl.insts, cost = both + selects;
    bool accept;
    std::string why;
    if (counts) {
      ProfileDecision d = decideByProfile(ctx_->ptxas(), *counts, t.insts, fl.insts, cost, "selecting");
      accept = d.convert && selects <= maxSelects_;
      why = std::move(d.why);
      ctx_->count(accept ? "profile-accepted" : "profile-refused");
    } else if (selects > maxSelects_) {
      accept = false;
      why = std::to_string(selects) + " selects against max-selects " + std::to_string(maxSelects_);
    } else {
      int64_t limit = isDivergent ? limit_ : uniformLimit_;
      accept = cost <= limit;
      why = std::string(divergenceWord(isDivergent, *r.branch)) + " branch: both sides and the selects " + std::to_string(cost) + " against " +
            (isDivergent ? "limit " : "uniform-limit ") + std::to_string(limit);
    }
    if (!accept) return refuse("cost", why);
    ctx_->count("converted");
    ctx_->count("converted-" + r.shape);
    ctx_->count("selects", selects);
    remark("convert", why);
    convert(r, merged, t, fl);
    return true;
  }

  Instruction* make(Opcode op, ScalarType type, std::initializer_list<Operand> ops, const Instruction& at) {
    return buildInstruction(*f_, op, type, ops, &at);
  }


  // Renames what the side writes where the old value is still wanted (by the merge or by the
  // other side); returns register -> its value at the end of the side, for the renamed ones.
  std::unordered_map<RegId, RegId> speculate(const std::vector<BasicBlock*>& blocks, const std::vector<RegId>& merged,
                                             const SideFacts& other, RegId guard, bool neg, std::vector<Instruction*>& out) {
    std::unordered_map<RegId, RegId> name;
    auto rename = [&](Operand& o) {
      // Registers, and the base register of an address ([%rd+8]).
      if (!o.isReg() && !(o.kind == OperandKind::Address && o.addressBase() == AddressBase::Reg)) return;
      if (auto it = name.find(static_cast<RegId>(o.id)); it != name.end()) o.id = it->second;
    };
    for (BasicBlock* b : blocks)
      for (Instruction* i : b->insts()) {
        if (isChainJump(*b, *i)) continue;
        for (uint32_t k = i->numDefOperands(); k < i->operands().size(); ++k) i->visitLeaves(i->operand(k), rename);
        if (!i->isSpeculatable()) {
          i->setGuard(guard, neg);
          ctx_->count("guarded-instructions");
        }
        if (i->numDefOperands() == 1)
          i->visitLeaves(i->operand(0), [&](Operand& o) {
            RegId x = static_cast<RegId>(o.id);
            bool readByOther = std::find(other.uses.begin(), other.uses.end(), x) != other.uses.end();
            if (x != guard && !readByOther && std::find(merged.begin(), merged.end(), x) == merged.end()) return;
            auto it = name.find(x);
            if (it == name.end()) it = name.emplace(x, f_->addRegister(f_->reg(x).type, "%sv")).first;
            o.id = it->second;
          });
        out.push_back(i);
        if (i->isSpeculatable()) ctx_->count("speculated-instructions");
      }
    return name;
  }

  void convert(const IfRegion& r, const std::vector<RegId>& merged, const SideFacts& t, const SideFacts& fl) {
    BasicBlock* h = r.header;
    Instruction* bra = r.branch;
    RegId guard = bra->guard();
    bool takenNeg = bra->guardNegated();
    std::vector<Instruction*> out(h->insts().begin(), h->insts().end() - 1);  // without the branch
    auto tn = speculate(r.taken, merged, fl, guard, takenNeg, out);
    auto fn = speculate(r.fall, merged, t, guard, !takenNeg, out);
    auto valueIn = [](const std::unordered_map<RegId, RegId>& m, RegId x) {
      auto it = m.find(x);
      return it == m.end() ? x : it->second;
    };
    std::vector<RegId> preds;
    for (RegId x : merged) {
      ScalarType ty = f_->reg(x).type;
      if (ty == ScalarType::Pred) {
        preds.push_back(x);
        continue;
      }
      ScalarType bt = typeBits(ty) == 16 ? ScalarType::B16 : typeBits(ty) == 32 ? ScalarType::B32 : ScalarType::B64;
      Operand a = Operand::reg(valueIn(tn, x)), b = Operand::reg(valueIn(fn, x));
      if (takenNeg) std::swap(a, b);
      out.push_back(make(Opcode::Selp, bt, {Operand::reg(x), a, b, Operand::reg(guard)}, *bra));
    }
    // Predicates: guarded moves, after the selps (which read the guard). When one of them is
    // the guard itself, the moves read a copy of it.
    if (std::find(preds.begin(), preds.end(), guard) != preds.end()) {
      RegId copy = f_->addRegister(ScalarType::Pred, "%sv");
      out.push_back(make(Opcode::Mov, ScalarType::Pred, {Operand::reg(copy), Operand::reg(guard)}, *bra));
      guard = copy;
    }
    for (RegId x : preds)
      for (auto [m, neg] : {std::pair{&tn, takenNeg}, std::pair{&fn, !takenNeg}}) {
        auto it = m->find(x);
        if (it == m->end()) continue;
        Instruction* mov = make(Opcode::Mov, ScalarType::Pred, {Operand::reg(x), Operand::reg(it->second)}, *bra);
        mov->setGuard(guard, neg);
        out.push_back(mov);
      }
    replaceIfRegion(*f_, r, std::move(out), removed_);
  }

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_set<const BasicBlock*> removed_;
  int64_t limit_ = 0, uniformLimit_ = 0, maxSelects_ = 0, longLatencyWeight_ = 0, maxChain_ = 0;
  bool extraLatencyCheck_ = true, guardEffects_ = true, guardEffectsInTriangles_ = false;
};

}  // namespace

PassInfo selectPassInfo() {
  return {"select",
          "if-conversion to selp: triangles and diamonds of speculatable instructions run both sides unguarded and select the results",
          "000, OriDoPredication (if-conversion), the select form",
          {
              {"limit", KnobType::Int, "12", "most instructions of both sides plus the selects for a branch that may diverge"},
              {"uniform-limit", KnobType::Int, "3", "the same for a warp-uniform branch (each warp runs one side only)"},
              {"max-selects", KnobType::Int, "8", "most selp (and predicate moves) one region may need"},
              {"long-latency-weight", KnobType::Int, "8", "instructions a div, rem, sqrt or transcendental counts as"},
              {"max-chain", KnobType::Int, "4", "most blocks in one side (extended shapes)"},
              {"extra-latency-check", KnobType::Bool, "true", "without a profile, keep the branch when both sides hold long-latency arithmetic"},
              {"guard-effects", KnobType::Bool, "true", "sides may hold instructions with effects (loads, stores, atomics): they keep the side's guard, the rest is speculated"},
              {"guard-effects-in-triangles", KnobType::Bool, "false", "with guard-effects, triangles too (else diamonds only)"},
          },
          [] { return std::make_unique<Select>(); },
          /*testingAid=*/false,
          /*usesCallSummaries=*/false,
          /*skipsScopedFunctions=*/true};
}

}  // namespace ptxopt
