#include "IfRegion.h"

#include "GuardedCode.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"

namespace ptxopt {

namespace {

// The chain of single-entry blocks from `start`, up to the first block with several
// predecessors (the merge), `stop` or the header. nullopt when the chain leaves the shape.
std::optional<std::pair<std::vector<BasicBlock*>, BasicBlock*>> chain(const Function& f, BasicBlock* start,
                                                                      BasicBlock* header, BasicBlock* stop,
                                                                      int64_t maxChain) {
  std::vector<BasicBlock*> blocks;
  BasicBlock* x = start;
  for (;;) {
    if (x == stop || x == header) return std::make_pair(blocks, x);
    if (x->preds().size() != 1 || x == f.entry()) return std::make_pair(blocks, x);
    if (static_cast<int64_t>(blocks.size()) >= maxChain) return std::nullopt;
    if (x->succs().size() != 1) return std::nullopt;
    // The block ends in a plain jump or falls through (a guarded ret, exit or trap also
    // leaves one successor: not straight-line code).
    const Instruction* t = x->terminator();
    if (t && (t->hasGuard() || !t->is(Opcode::Bra))) return std::nullopt;
    blocks.push_back(x);
    x = x->succs()[0].to;
  }
}

}  // namespace

bool isChainJump(const BasicBlock& b, const Instruction& i) {
  return &i == b.terminator() && i.is(Opcode::Bra) && !i.hasGuard();
}

std::optional<IfRegion> findIfRegion(Function& f, BasicBlock* h, int64_t maxChain) {
  // Nothing but the branch may follow the region's instructions in H (a scope brace would
  // change what the sides see): conditionalBranch asks that too.
  Instruction* t = conditionalBranch(*h);
  if (!t) return std::nullopt;
  BasicBlock *T = h->successor(EdgeKind::Taken), *F = h->successor(EdgeKind::FallThrough);
  if (!T || !F || T == F || T == h || F == h) return std::nullopt;
  IfRegion r;
  r.header = h;
  r.branch = t;
  auto a = chain(f, T, h, F, maxChain);
  auto b = chain(f, F, h, T, maxChain);
  if (!a || !b) return std::nullopt;
  if (!a->first.empty() && !b->first.empty() && a->second == b->second) {
    r.merge = a->second;
    r.shape = a->first.size() > 1 || b->first.size() > 1 ? "extended-diamond" : "diamond";
  } else if (!a->first.empty() && a->second == F) {
    r.merge = F;
    r.shape = a->first.size() > 1 ? "extended-triangle" : "triangle";
    b->first.clear();
  } else if (!b->first.empty() && b->second == T) {
    r.merge = T;
    r.shape = b->first.size() > 1 ? "extended-triangle" : "triangle";
    a->first.clear();
  } else {
    return std::nullopt;
  }
  if (r.merge == h) return std::nullopt;
  if (!r.merge->hasLabel()) {
    // H must fall into M once the sides leave the layout.
    auto& blocks = f.blocks();
    size_t k = std::find(blocks.begin(), blocks.end(), h) - blocks.begin() + 1;
    auto inSide = [&](const BasicBlock* x) {
      return std::find(a->first.begin(), a->first.end(), x) != a->first.end() ||
             std::find(b->first.begin(), b->first.end(), x) != b->first.end();
    };
    while (k < blocks.size() && inSide(blocks[k])) ++k;
    if (k >= blocks.size() || blocks[k] != r.merge) return std::nullopt;
  }
  r.taken = std::move(a->first);
  r.fall = std::move(b->first);
  return r;
}

namespace {
bool uniAsserted(const Instruction& branch) {
  return branch.is(Opcode::Bra) && branch.hasGuard() && branch.has(Mod::Uni);
}
}  // namespace

bool costMayDiverge(const UniformityInfo& uni, const BasicBlock* b) {
  const Instruction* t = b->terminator();
  return uni.isDivergentBranch(b) && !(t && uniAsserted(*t));
}

const char* divergenceWord(bool mayDiverge, const Instruction& branch) {
  return mayDiverge ? "divergent" : uniAsserted(branch) ? "uniform (bra.uni)" : "uniform";
}

IfWalk ifWalk(FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const UniformityInfo& uni = am.get<UniformityAnalysis>();
  IfWalk w;
  for (auto it = cfg.rpo.rbegin(); it != cfg.rpo.rend(); ++it) {
    BasicBlock* b = const_cast<BasicBlock*>(*it);
    w.order.push_back(b);
    if (const Instruction* t = b->terminator()) w.divergent[t] = costMayDiverge(uni, b);
  }
  return w;
}

const BranchCounts* usableCounts(const PassContext& ctx, const Instruction& branch) {
  const BranchCounts* c = ctx.branchCounts(branch);
  return c && c->executions() > 0 && !c->indirect ? c : nullptr;
}

ProfileDecision decideByProfile(const PtxasModel& ptxas, const BranchCounts& c, double taken, double fall,
                                double converted, const char* form) {
  double branching = expectedBranchCost(ptxas, BranchOdds::fromCounts(c), taken, fall);
  char text[160];
  std::snprintf(text, sizeof text, "%llu executions, %d%% divergent; expected %.2f instructions %s against %.2f branching",
                static_cast<unsigned long long>(c.executions()), int(100 * c.divergentFraction()), converted, form,
                branching);
  return {convertedWins(converted, branching), std::string("profile: ") + text};
}

void replaceIfRegion(Function& f, const IfRegion& r, std::vector<Instruction*> body,
                     std::unordered_set<const BasicBlock*>& removed) {
  BasicBlock* h = r.header;
  for (const auto* side : {&r.taken, &r.fall})
    for (BasicBlock* b : *side) {
      b->insts().clear();
      removed.insert(b);
    }
  auto& blocks = f.blocks();
  blocks.erase(std::remove_if(blocks.begin(), blocks.end(), [&](BasicBlock* b) { return removed.count(b) != 0; }),
               blocks.end());
  size_t at = std::find(blocks.begin(), blocks.end(), h) - blocks.begin();
  if (at + 1 >= blocks.size() || blocks[at + 1] != r.merge) {
    Instruction* j = buildInstruction(f, Opcode::Bra, ScalarType::None, {Operand::label(r.merge->label())}, r.branch);
    j->addMod(Mod::Uni);
    body.push_back(j);
  }
  h->insts().clear();
  for (Instruction* i : body) {
    i->setParent(h);
    h->append(i);
  }
}

}  // namespace ptxopt
