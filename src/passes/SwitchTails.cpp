// switch-opt's copies of the function's end into a jump table's cases (SwitchTails.h).
#include "SwitchTails.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "ptxopt/ir/Cfg.h"

#include "GuardedCode.h"

namespace ptxopt::switchopt {

namespace {

// The instructions from `s` on to the function's end, without the jumps; nullopt when the
// way there branches, is longer than `limit` or holds something not to copy.
std::optional<std::vector<Instruction*>> functionTail(BasicBlock* s, size_t limit) {
  std::vector<Instruction*> tail;
  std::set<BasicBlock*> seen;
  for (BasicBlock* b = s; seen.insert(b).second;) {
    for (Instruction* i : b->insts()) {
      if (i == b->terminator() && !i->hasGuard() && (i->is(Opcode::Ret) || i->is(Opcode::Exit))) {
        tail.push_back(i);
        return tail.size() <= limit ? std::optional(tail) : std::nullopt;
      }
      if (i == b->terminator() && i->is(Opcode::Bra) && !i->hasGuard()) continue;
      if (!whyNotPredicable(*i).empty()) return std::nullopt;
      tail.push_back(i);
    }
    if (b->succs().size() != 1 || tail.size() > limit) return std::nullopt;
    b = b->succs()[0].to;
  }
  return std::nullopt;
}

}  // namespace

// Ends the cases of `targets` (in layout order) that go straight on to a short function end
// with a copy of it; returns how many. One end (the one most cases reach) may have its
// case-independent part moved to the front of `dispatch`, or to the end of `root` (before its
// range check's branch) when the default is among the cases that copy it, when every case
// copying it is entered only from `root` or `dispatch`: an unguarded speculatable
// instruction whose inputs no case and no copied instruction before it writes, and whose
// results no case and no copied instruction before it reads or writes and are dead after the
// root (`live`, what the root block left live before the lowering). Every path into a copy
// then computes the same values it computed at the end, and no other path reads the new
// writes.
unsigned copyFunctionEnd(Function& f, PassContext& ctx, const BlockSet& targets, BasicBlock* root, BasicBlock* dispatch,
                         const BitVector& live, int64_t limit) {
  if (limit <= 0) return 0;
  constexpr size_t kLongestEnd = 16;  // most instructions of an end looked at, moved ones included
  // The lowered switch's edges, and the blocks still reachable (the old tree is not).
  buildCfg(f);
  std::set<BasicBlock*> reachable{f.blocks().front()};
  for (std::vector<BasicBlock*> work{f.blocks().front()}; !work.empty();) {
    BasicBlock* b = work.back();
    work.pop_back();
    for (const Edge& e : b->succs())
      if (reachable.insert(e.to).second) work.push_back(e.to);
  }
  std::vector<BasicBlock*> ends;
  std::map<BasicBlock*, std::vector<BasicBlock*>> casesOf;
  for (BasicBlock* t : f.blocks()) {
    if (!targets.count(t) || t->succs().size() != 1) continue;
    BasicBlock* s = t->succs()[0].to;
    Instruction* term = t->terminator();
    bool jumps = term && term->is(Opcode::Bra) && !term->hasGuard();
    if (s == t || (term && !jumps)) continue;
    auto [it, fresh] = casesOf.try_emplace(s);
    if (fresh) ends.push_back(s);
    it->second.push_back(t);
  }
  std::stable_sort(ends.begin(), ends.end(), [&](BasicBlock* a, BasicBlock* b) { return casesOf[a].size() > casesOf[b].size(); });
  unsigned n = 0, moved = 0;
  for (BasicBlock* s : ends) {
    std::optional<std::vector<Instruction*>> tail = functionTail(s, kLongestEnd);
    if (!tail) continue;
    const std::vector<BasicBlock*>& cases = casesOf[s];
    std::set<RegId> caseReads, caseWrites, copyReads, copyWrites;
    for (BasicBlock* t : cases)
      for (Instruction* i : t->insts()) {
        i->forEachUseReg([&](RegId r) { caseReads.insert(r); });
        i->forEachDefReg([&](RegId r) { caseWrites.insert(r); });
      }
    bool onlyFromSwitch = s == ends.front(), fromRoot = false;
    for (BasicBlock* t : cases)
      for (BasicBlock* p : t->preds()) {
        onlyFromSwitch = onlyFromSwitch && (p == root || p == dispatch || !reachable.count(p));
        fromRoot = fromRoot || p == root;
      }
    std::vector<Instruction*> hoist, copy;
    for (Instruction* i : *tail) {
      bool ok = onlyFromSwitch && !i->hasGuard() && i->isSpeculatable();
      i->forEachUseReg([&](RegId r) { ok = ok && !caseWrites.count(r) && !copyWrites.count(r); });
      i->forEachDefReg([&](RegId r) {
        ok = ok && !live.test(r) && !caseReads.count(r) && !caseWrites.count(r) && !copyReads.count(r) && !copyWrites.count(r);
      });
      if (ok) {
        hoist.push_back(i);
        continue;
      }
      copy.push_back(i);
      i->forEachUseReg([&](RegId r) { copyReads.insert(r); });
      i->forEachDefReg([&](RegId r) { copyWrites.insert(r); });
    }
    if (copy.size() > size_t(limit)) continue;
    BasicBlock* into = fromRoot ? root : dispatch;
    auto& insts = into->insts();
    auto at = fromRoot ? std::find(insts.begin(), insts.end(), root->terminator()) : insts.begin();
    for (Instruction* i : hoist) {
      Instruction* c = f.cloneInstruction(*i);
      c->setParent(into);
      at = insts.insert(at, c) + 1;
    }
    moved += unsigned(hoist.size());
    for (BasicBlock* t : cases) {
      Instruction* term = t->terminator();
      if (term) t->insts().erase(std::find(t->insts().begin(), t->insts().end(), term));
      for (Instruction* i : copy) {
        Instruction* c = f.cloneInstruction(*i);
        c->setParent(t);
        t->append(c);
      }
      ++n;
    }
  }
  if (n) ctx.count("tails-copied", n);
  if (moved) ctx.count("tail-instructions-moved", moved);
  return n;
}

}  // namespace ptxopt::switchopt
