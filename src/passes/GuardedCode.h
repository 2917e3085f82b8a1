// Guarded straight-line code: what predication, mask-regions, mask-loops and switch-opt's
// predicated switch make of several ways of control flow. Each turns the instructions of the ways
// into one line in which an instruction runs under the guard of its way; the facts they share
// live here once:
//   - which instructions may carry a guard at all (whyNotPredicable);
//   - which may run unguarded, for every lane: writers of private temporaries
//     (writesOnlyPrivateTemporaries over DefinitionSites) and first writes of a register dead
//     before the construct (FirstWrites);
//   - the conjunction of a way's guard with the guard an instruction already carries, one per run
//     of instructions under the same guard (ConjunctionCache, GuardedLine);
//   - how an inserted instruction is built (buildInstruction and friends; nested-cond and
//     branch-opt build theirs with them too).
#pragma once

#include <initializer_list>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ptxopt/ir/Function.h"
#include "ptxopt/support/BitVector.h"

namespace ptxopt {

// ---- Building instructions -------------------------------------------------------------------

// A new instruction `op` with a type modifier (none for ScalarType::None) and these operands,
// at the source position of `at` (none when null): what the passes insert.
Instruction* buildInstruction(Function& f, Opcode op, ScalarType type, std::initializer_list<Operand> ops,
                              const Instruction* at);
// `[@[!]guard] bra LABEL`, at the position of `at` (none when null).
Instruction* buildBra(Function& f, uint32_t label, RegId guard, bool negated, const Instruction* at);
// A predicate operand, `%r` or `!%r`.
Operand predOperand(RegId r, bool negated);
// `and.pred dst, [!]a, [!]b` (or `or.pred`), at the position of `at`.
Instruction* buildPredLogic(Function& f, Opcode op, RegId dst, RegId a, bool na, RegId b, bool nb, const Instruction* at);
// `vote.sync.any.pred dst, src, lanes`, or `vote.any.pred dst, src` when lanes is kNoReg.
Instruction* buildVoteAny(Function& f, RegId dst, Operand src, RegId lanes, const Instruction* at);

// ---- What may carry a guard, what may run without one ----------------------------------------

// Why `i` cannot carry a guard of the construct (empty when it can): declarations and scope
// braces, opaque instructions, CTA barriers, warp collectives and anything convergent (their
// lanes are the ones that branched), calls, and terminators inside a way.
std::string whyNotPredicable(const Instruction& i);

// The first writes of a line of guarded code. mayRunUnguarded(i): whether `i`, an instruction of
// one way (a side, a case, a block under a mask) of a construct that becomes one line, may run
// unguarded, for every lane, as the first write of what it writes: it has no guard, cannot fault
// or have an effect, no earlier instruction of the line (those passed to after()) writes its
// registers, and they are dead before the construct (`liveBefore`). A lane of another way then
// writes them later in the line or never reads them (a read before its own write would make them
// live there). Guarded, ptxas keeps the other lanes' dead old value with a SEL. switch-opt,
// predication and mask-regions use it under `speculate`.
class FirstWrites {
 public:
  explicit FirstWrites(const BitVector& liveBefore) : liveBefore_(liveBefore) {}
  bool mayRunUnguarded(const Instruction& i) const;
  void after(const Instruction& i) {
    i.forEachDefReg([&](RegId r) { written_.insert(r); });
  }

 private:
  const BitVector& liveBefore_;
  std::unordered_set<RegId> written_;
};

// The blocks that write each register (each block once, in layout order).
class DefinitionSites {
 public:
  explicit DefinitionSites(const Function& f);
  // Whether every block writing `r` satisfies `inScope` (registers added since: none writes them).
  template <class InScope>
  bool allIn(RegId r, InScope&& inScope) const {
    if (size_t(r) + 1 >= start_.size()) return true;
    for (uint32_t k = start_[r]; k < start_[r + 1]; ++k)
      if (!inScope(sites_[k])) return false;
    return true;
  }

 private:
  std::vector<uint32_t> start_;  // register r's blocks are sites_[start_[r], start_[r + 1])
  std::vector<const BasicBlock*> sites_;
};

// Whether `i` may run unguarded, for every lane, because all it writes are private temporaries of
// its way: it has no guard, cannot fault or have an effect, and each register it writes is
// written only in blocks `inScope` accepts and is dead at each of `deadAt` (the construct's entry
// and exit). The caller's scope is what makes it sound: it must be such that a lane outside the
// way reaches no read of the register through one of these writes (a way's own blocks; both
// sides of an if-region, whose line runs one side after the other; the blocks a mask-region block
// dominates). Guarded, such a temporary costs ptxas a select to keep the other lanes' old value.
template <class InScope>
bool writesOnlyPrivateTemporaries(const Instruction& i, const DefinitionSites& defs, InScope&& inScope,
                                  std::initializer_list<const BitVector*> deadAt) {
  if (i.hasGuard() || !i.isSpeculatable()) return false;
  bool ok = true;
  i.forEachDefReg([&](RegId r) {
    if (!ok) return;
    for (const BitVector* live : deadAt)
      if (live->test(r)) ok = false;
    ok = ok && defs.allIn(r, inScope);
  });
  return ok;
}

// ---- Guards composed with the guards instructions already carry -------------------------------

// The conjunctions of a way's guard with the guards its instructions already carry (`@[!]%q X`
// becomes `and.pred %t, WAY, [!]%q; @%t X`): consecutive instructions under the same guard share
// one while the guard is not written in between. `V` is whatever names the conjunction (a
// register, or a value of a plan).
template <class V>
class ConjunctionCache {
 public:
  // The conjunction for `@[!]g`: the one made before, or the one `make()` makes now.
  template <class Make>
  V get(RegId g, bool negated, Make&& make) {
    for (const Entry& e : entries_)
      if (e.guard == g && e.negated == negated) return e.value;
    entries_.push_back(Entry{g, negated, make()});
    return entries_.back().value;
  }
  // After `i`: a conjunction of a guard that `i` writes is stale.
  void after(const Instruction& i) {
    i.forEachDefReg([&](RegId r) { std::erase_if(entries_, [&](const Entry& e) { return e.guard == r; }); });
  }

 private:
  struct Entry {
    RegId guard;
    bool negated;
    V value;
  };
  std::vector<Entry> entries_;
};

// A line of guarded code being written into `out`: instructions added with add() run under
// `@[!]guard`, an instruction with a guard of its own under the conjunction (an `and.pred` into a
// new register named after `prefix`, placed before it at `at`'s position, or its own when `at` is
// null); addUnguarded() keeps an instruction as it is (it runs for every lane).
class GuardedLine {
 public:
  GuardedLine(Function& f, std::vector<Instruction*>& out, RegId guard, bool negated, const char* prefix,
              const Instruction* at = nullptr)
      : f_(f), out_(out), guard_(guard), negated_(negated), prefix_(prefix), at_(at) {}
  void add(Instruction* i);
  void addUnguarded(Instruction* i) {
    cache_.after(*i);
    out_.push_back(i);
  }
  unsigned conjunctions() const { return conjunctions_; }

 private:
  Function& f_;
  std::vector<Instruction*>& out_;
  RegId guard_;
  bool negated_;
  const char* prefix_;
  const Instruction* at_;
  ConjunctionCache<RegId> cache_;
  unsigned conjunctions_ = 0;
};

}  // namespace ptxopt
