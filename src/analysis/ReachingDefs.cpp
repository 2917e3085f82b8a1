// Reaching definitions without bit vectors over all definitions: registers written more than
// once are renamed as in SSA construction -- merge points ("phis") on the iterated dominance
// frontier of their definitions, pruned to where the register is live, then one walk of the
// dominator tree -- and the definitions behind each value are collected once per strongly
// connected group of merge points. Time and memory follow the size of the function and of the
// merge webs, not definitions times blocks.
#include "ptxopt/analysis/ReachingDefs.h"

#include <algorithm>
#include <numeric>
#include <span>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Scc.h"

namespace ptxopt {

const ReachingDefs::UseRange* ReachingDefs::findUse(const Instruction* inst, RegId reg) const {
  auto it = usesOfInst_.find(inst);
  if (it == usesOfInst_.end()) return nullptr;
  for (uint32_t k = it->second.first; k < it->second.first + it->second.second; ++k)
    if (uses_[k].reg == reg) return &uses_[k];
  return nullptr;
}

std::span<const uint32_t> ReachingDefs::reaching(const Instruction* inst, RegId reg) const {
  const UseRange* u = findUse(inst, reg);
  if (!u) return {};
  return {reachingFlat_.data() + u->first, u->count};
}

bool ReachingDefs::entryValueReaches(const Instruction* inst, RegId reg) const {
  const UseRange* u = findUse(inst, reg);
  return !u || u->entry;
}

namespace {

// A value a register can hold at a point: its entry value, one definition, a merge of values
// at a join (a phi), or a definition that may not have happened on top of an older value.
struct Value {
  enum class Kind : uint8_t { Entry, Def, Phi, May } kind;
  uint32_t def = 0;                 // Def, May
  uint32_t prev = 0;                // May: the older value
  std::vector<uint32_t> incoming;   // Phi
};

struct Flat {
  std::vector<uint32_t> defs;  // sorted
  bool entry = false;
};

}  // namespace

ReachingDefs ReachingDefsAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  ReachingDefs rd;
  const uint32_t nregs = static_cast<uint32_t>(f.regs().size());
  rd.defsOfReg_.assign(nregs, {});

  size_t ninsts = 0;
  for (const BasicBlock* b : f.blocks()) ninsts += b->insts().size();
  // Definition sites, in layout order: a block's are contiguous from firstDefOf[its id], in the
  // order of its instructions; defAt[d] is where definition d is (block, index in the block).
  const uint32_t nb = f.blockIdBound();
  std::vector<uint32_t> firstDefOf(nb, 0);
  std::vector<std::pair<const BasicBlock*, uint32_t>> defAt;
  std::vector<RegId> killed;
  for (const BasicBlock* b : f.blocks()) {
    firstDefOf[b->id()] = static_cast<uint32_t>(rd.defs_.size());
    for (uint32_t k = 0; k < b->insts().size(); ++k) {
      const Instruction* inst = b->insts()[k];
      if (inst->info().isPseudo()) continue;
      killed.clear();
      forEachKilledReg(*inst, [&](RegId r) { killed.push_back(r); });
      inst->forEachDefReg([&](RegId r) {
        bool kills = std::find(killed.begin(), killed.end(), r) != killed.end();
        rd.defsOfReg_[r].push_back(static_cast<uint32_t>(rd.defs_.size()));
        rd.defs_.push_back(DefSite{inst, r, kills});
        defAt.emplace_back(b, k);
      });
    }
  }
  const uint32_t n = cfg.size();
  if (n == 0) {
    rd.useStart_.assign(rd.defs_.size() + 1, 0);
    return rd;
  }
  const DomTree& dom = am.get<DominatorAnalysis>().tree;
  const DominanceFrontier& df = am.get<DominanceFrontierAnalysis>();
  const Liveness& live = am.get<LivenessAnalysis>();

  // ---- registers written more than once: SSA-style renaming ---------------------------------
  std::vector<uint8_t> multi(nregs, 0);
  for (RegId r = 0; r < nregs; ++r) multi[r] = rd.defsOfReg_[r].size() > 1;
  std::vector<Value> values;
  std::vector<int32_t> entryValue(nregs, -1);
  auto newValue = [&](Value v) {
    values.push_back(std::move(v));
    return static_cast<uint32_t>(values.size() - 1);
  };
  auto entryOf = [&](RegId r) {
    if (entryValue[r] < 0) entryValue[r] = static_cast<int32_t>(newValue(Value{Value::Kind::Entry, 0, 0, {}}));
    return static_cast<uint32_t>(entryValue[r]);
  };

  // Merge points: the iterated dominance frontier of the blocks that write r (the entry counts,
  // for the entry value), where r is live on entry.
  std::vector<std::vector<std::pair<RegId, uint32_t>>> phisAt(n);  // (register, value)
  {
    std::vector<uint32_t> mark(n, UINT32_MAX), work;
    std::vector<uint32_t> inIdf(n, UINT32_MAX);
    for (RegId r = 0; r < nregs; ++r) {
      if (!multi[r]) continue;
      work.clear();
      auto seed = [&](uint32_t b) {
        if (mark[b] != r) {
          mark[b] = r;
          work.push_back(b);
        }
      };
      seed(0);
      for (uint32_t d : rd.defsOfReg_[r]) {
        int32_t b = cfg.index(defAt[d].first);
        if (b >= 0) seed(static_cast<uint32_t>(b));
      }
      while (!work.empty()) {
        uint32_t x = work.back();
        work.pop_back();
        for (uint32_t y : df.frontier[x]) {
          if (inIdf[y] == r) continue;
          inIdf[y] = r;
          if (live.liveIn[cfg.rpo[y]->id()].test(r)) phisAt[y].emplace_back(r, newValue(Value{Value::Kind::Phi, 0, 0, {}}));
          seed(y);
        }
      }
    }
  }

  // One walk over the dominator tree with a stack of current values per register.
  std::vector<std::vector<uint32_t>> stack(nregs);
  std::vector<RegId> undo;
  // The value each read of a multiply-written register sees, in the order of the reads within
  // each block; a block's reads start at firstUseValueOf[its id].
  struct UseValue {
    const Instruction* inst;
    RegId reg;
    uint32_t value;
  };
  std::vector<UseValue> useValues;
  std::vector<uint32_t> firstUseValueOf(nb, 0);
  auto current = [&](RegId r) { return stack[r].empty() ? entryOf(r) : stack[r].back(); };
  auto push = [&](RegId r, uint32_t v) {
    stack[r].push_back(v);
    undo.push_back(r);
  };
  struct Frame {
    uint32_t node;
    size_t child;
    size_t undoMark;
  };
  std::vector<Frame> frames;
  auto enter = [&](uint32_t k) {
    frames.push_back(Frame{k, 0, undo.size()});
    for (auto [r, v] : phisAt[k]) push(r, v);
    const BasicBlock* B = cfg.rpo[k];
    firstUseValueOf[B->id()] = static_cast<uint32_t>(useValues.size());
    uint32_t d = firstDefOf[B->id()];
    for (const Instruction* inst : B->insts()) {
      if (inst->info().isPseudo()) continue;
      const size_t mine = useValues.size();
      inst->forEachUseReg([&](RegId r) {
        if (!multi[r]) return;
        for (size_t j = mine; j < useValues.size(); ++j)
          if (useValues[j].reg == r) return;
        useValues.push_back(UseValue{inst, r, current(r)});
      });
      for (; d < rd.defs_.size() && rd.defs_[d].inst == inst; ++d) {
        RegId r = rd.defs_[d].reg;
        if (!multi[r]) continue;
        uint32_t v = rd.defs_[d].kills ? newValue(Value{Value::Kind::Def, d, 0, {}})
                                       : newValue(Value{Value::Kind::May, d, current(r), {}});
        push(r, v);
      }
    }
    for (uint32_t s : cfg.succ[k])
      for (auto [r, v] : phisAt[s]) {
        uint32_t value = current(r);  // may add an entry value to `values`: take it first
        values[v].incoming.push_back(value);
      }
  };
  enter(0);
  while (!frames.empty()) {
    Frame& fr = frames.back();
    const auto& kids = dom.children(fr.node);
    if (fr.child < kids.size()) {
      enter(kids[fr.child++]);
      continue;
    }
    while (undo.size() > fr.undoMark) {
      stack[undo.back()].pop_back();
      undo.pop_back();
    }
    frames.pop_back();
  }

  // The definitions behind each value: strongly connected groups of merges share one set.
  std::vector<int32_t> flatOf(values.size(), -1);
  std::vector<Flat> flats;
  {
    auto edges = [&](uint32_t v) -> std::span<const uint32_t> {
      const Value& x = values[v];
      if (x.kind == Value::Kind::Phi) return x.incoming;
      if (x.kind == Value::Kind::May) return {&x.prev, 1};
      return {};
    };
    DenseSccState state(static_cast<uint32_t>(values.size()));
    std::vector<uint32_t> all(values.size());
    std::iota(all.begin(), all.end(), 0u);
    forEachScc(state, all, edges,
               [&](const std::vector<uint32_t>& members) {
                 // A finished group: its set is its own definitions and what its successors reach.
                 for (uint32_t m : members) flatOf[m] = static_cast<int32_t>(flats.size());
                 Flat flat;
                 for (uint32_t m : members) {
                   const Value& x = values[m];
                   if (x.kind == Value::Kind::Entry) flat.entry = true;
                   if (x.kind == Value::Kind::Def || x.kind == Value::Kind::May) flat.defs.push_back(x.def);
                   for (uint32_t y : edges(m)) {
                     int32_t g = flatOf[y];
                     if (g >= 0 && g != static_cast<int32_t>(flats.size())) {
                       const Flat& other = flats[static_cast<uint32_t>(g)];
                       flat.defs.insert(flat.defs.end(), other.defs.begin(), other.defs.end());
                       flat.entry |= other.entry;
                     }
                   }
                 }
                 std::sort(flat.defs.begin(), flat.defs.end());
                 flat.defs.erase(std::unique(flat.defs.begin(), flat.defs.end()), flat.defs.end());
                 flats.push_back(std::move(flat));
               });
  }

  // ---- registers written once: dominance decides ------------------------------------------
  // The blocks reachable from the end of a block, by block id (searched once per block, and
  // only for uses that the definition does not dominate).
  std::unordered_map<uint32_t, std::vector<uint8_t>> reachFrom;
  auto blocksAfter = [&](const BasicBlock* from) -> const std::vector<uint8_t>& {
    auto it = reachFrom.find(from->id());
    if (it != reachFrom.end()) return it->second;
    std::vector<uint8_t> seen(nb, 0);
    std::vector<const BasicBlock*> work;
    for (const Edge& e : from->succs())
      if (!seen[e.to->id()]) {
        seen[e.to->id()] = 1;
        work.push_back(e.to);
      }
    while (!work.empty()) {
      const BasicBlock* x = work.back();
      work.pop_back();
      for (const Edge& e : x->succs())
        if (!seen[e.to->id()]) {
          seen[e.to->id()] = 1;
          work.push_back(e.to);
        }
    }
    return reachFrom.emplace(from->id(), std::move(seen)).first->second;
  };
  auto dominatesUse = [&](uint32_t d, const BasicBlock* ub, uint32_t uk) {
    auto [db, dk] = defAt[d];
    if (db == ub) return dk < uk;
    int32_t a = cfg.index(db), b = cfg.index(ub);
    return a >= 0 && b >= 0 && dom.dominates(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
  };
  auto reachesUse = [&](uint32_t d, const BasicBlock* ub, uint32_t uk) {
    auto [db, dk] = defAt[d];
    if (db == ub && dk < uk) return true;
    return blocksAfter(db)[ub->id()] != 0;
  };

  // ---- record, for every read, the definitions that reach it --------------------------------
  rd.usesOfInst_.reserve(ninsts);
  std::vector<UseSite> flatSite;  // the read behind each entry of reachingFlat_
  for (const BasicBlock* b : f.blocks()) {
    bool reachable = cfg.reachable(b);
    uint32_t uv = reachable ? firstUseValueOf[b->id()] : 0;  // this instruction's first UseValue
    for (uint32_t k = 0; k < b->insts().size(); ++k) {
      const Instruction* inst = b->insts()[k];
      if (inst->info().isPseudo()) continue;
      uint32_t uvEnd = uv;
      if (reachable)
        while (uvEnd < useValues.size() && useValues[uvEnd].inst == inst) ++uvEnd;
      auto findUseValue = [&](RegId r) -> const uint32_t* {
        for (uint32_t j = uv; j < uvEnd; ++j)
          if (useValues[j].reg == r) return &useValues[j].value;
        return nullptr;
      };
      uint32_t firstUse = static_cast<uint32_t>(rd.uses_.size());
      inst->forEachUseReg([&](RegId r) {
        for (uint32_t j = firstUse; j < rd.uses_.size(); ++j)
          if (rd.uses_[j].reg == r) return;  // each register once per instruction
        ReachingDefs::UseRange u{r, static_cast<uint32_t>(rd.reachingFlat_.size()), 0, true};
        const auto& defs = rd.defsOfReg_[r];
        auto add = [&](uint32_t d) {
          rd.reachingFlat_.push_back(d);
          flatSite.push_back(UseSite{inst, r});
          ++u.count;
        };
        if (defs.size() == 1) {
          uint32_t d = defs[0];
          const bool dominates = reachable && dominatesUse(d, b, k);  // then it surely reaches
          u.entry = !(dominates && rd.defs_[d].kills);
          if (dominates || !reachable || reachesUse(d, b, k)) add(d);
        } else if (defs.size() > 1) {
          const uint32_t* v = reachable ? findUseValue(r) : nullptr;
          if (!v) {
            for (uint32_t d : defs) add(d);  // unreachable code: anything
          } else {
            const Flat& fl = flats[static_cast<uint32_t>(flatOf[*v])];
            u.entry = fl.entry;
            for (uint32_t d : fl.defs) add(d);
          }
        }
        rd.uses_.push_back(u);
      });
      if (rd.uses_.size() > firstUse)
        rd.usesOfInst_.emplace(inst, std::make_pair(firstUse, static_cast<uint32_t>(rd.uses_.size()) - firstUse));
      uv = uvEnd;
    }
  }
  // The reads of each definition, in the order of the reads (a counting sort).
  rd.useStart_.assign(rd.defs_.size() + 1, 0);
  for (uint32_t d : rd.reachingFlat_) ++rd.useStart_[d + 1];
  for (size_t d = 0; d < rd.defs_.size(); ++d) rd.useStart_[d + 1] += rd.useStart_[d];
  rd.useSites_.resize(flatSite.size());
  std::vector<uint32_t> fill(rd.useStart_.begin(), rd.useStart_.end() - 1);
  for (size_t j = 0; j < flatSite.size(); ++j) rd.useSites_[fill[rd.reachingFlat_[j]]++] = flatSite[j];
  return rd;
}

}  // namespace ptxopt
