// The compare trees switch-opt reads (docs/passes/switch-opt.md, "Recognition"): a node is a
// compare of the selector (maybe plus a constant) with an immediate, an unguarded brx.idx on
// it, or one of LLVM's bit tests; `holds` and `next` evaluate a node exactly for any value of
// the selector, which the pass walks value by value between the change points.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Function.h"
#include "ptxopt/ir/Semantics.h"

#include "BlockOrder.h"

namespace ptxopt::switchopt {

struct SwitchNode {
  Instruction* setp = nullptr;
  Instruction* bra = nullptr;
  CmpOp cmp = CmpOp::Eq;
  bool isSigned = true;
  int64_t c = 0;
  uint32_t raw = 0;  // the constant's bits (16 or 32)
  unsigned bits = 32;
  RegId sel = kNoReg, pred = kNoReg;
  // An inner test may compare the selector plus a constant (`add.s32 %t, %sel, -3` first, the
  // range checks LLVM writes for runs of values with one target): `offset` is that constant's
  // bits, `add` the instruction and `tmp` its result.
  uint32_t offset = 0;
  Instruction* add = nullptr;
  RegId tmp = kNoReg;
  // An inner node may also be an unguarded `brx.idx` on the selector (plus an offset): `bra` is
  // the brx.idx, `entries` its table's blocks by index, and there is no setp or predicate.
  std::vector<BasicBlock*> entries;
  bool isBrx() const { return !entries.empty(); }
  // A root's selector may be the result of an `and.b32` with a constant M or a `rem.u32` by a
  // constant K computed before the test in its block: it then lies in [0, domainHi] (M, or
  // K - 1), and no other value occurs. A root may then be a `brx.idx` with no range check in
  // front, when the table covers that domain. -1 for every other node.
  int64_t domainHi = -1;
  // A node may also be one of LLVM's bit tests (its switch lowering for few targets over a
  // small range): `shl.b32 %b, 1, %s` (%s the selector, or the selector plus a constant just
  // computed), `and.b32 %t, %b, MASK`, `setp.ne|eq %p, %t, 0`. The test holds when bit
  // (selector + offset) of MASK is set (ne) or clear (eq); a shift by 32 or more leaves 0. The
  // shl may sit in an earlier node of the tree (`shlBlock`) that dominates this one. `temps`
  // are the registers the node writes besides its predicate.
  bool bitTest = false;
  uint32_t bitMask = 0;
  BasicBlock* shlBlock = nullptr;
  std::vector<RegId> temps;
  BasicBlock *ifTrue = nullptr, *ifFalse = nullptr;  // where the selector goes when the compare holds / not
};

// The nodes of one tree by their blocks, iterated in block-id order (BlockOrder.h).
using NodesByBlock = BlockMap<SwitchNode>;

// A constant's bits as a comparison of `bits` bits and this signedness reads them.
int64_t valueOf(uint32_t raw, unsigned bits, bool isSigned);
// Does the test hold for selector value `v` (read in the tree's domain)?
bool holds(const SwitchNode& t, int64_t v);

// Reads the nodes of a function's compare trees. `tables` and `pinned` are the function's
// branch-target tables and the labels they or debug sections name (skipJumps stops at those).
class SwitchTreeReader {
 public:
  SwitchTreeReader(Function& f, const BranchTargetTables& tables, const std::unordered_set<std::string_view>& pinned)
      : f_(&f), tables_(&tables), pinned_(&pinned) {}

  // The node ending `b`, a root when `root` (whose block may compute anything first).
  std::optional<SwitchNode> nodeAt(BasicBlock* b, bool root) const;
  // Where the node sends selector value `v`; null past a brx.idx table.
  BasicBlock* next(const SwitchNode& t, int64_t v) const;
  // Looks through blocks that only jump or are empty.
  BasicBlock* skipJumps(BasicBlock* b) const;

 private:
  std::optional<SwitchNode> compareNodeAt(BasicBlock* b, bool root, const std::vector<Instruction*>& real) const;
  static bool readOffset(Instruction* add, SwitchNode& t);
  static bool writes(const Instruction& i, RegId r);
  static Instruction* lastDefBefore(BasicBlock* b, const Instruction* before, RegId r);
  bool readBitTest(BasicBlock* b, bool root, const std::vector<Instruction*>& real, SwitchNode& t) const;
  static Instruction* rootBranch(BasicBlock& b);
  std::optional<SwitchNode> brxAt(const std::vector<Instruction*>& real) const;
  std::optional<SwitchNode> rootBrxAt(BasicBlock* b, const std::vector<Instruction*>& real) const;
  static int64_t domainOf(BasicBlock* b, const Instruction* at, RegId r);

  Function* f_;
  const BranchTargetTables* tables_;
  const std::unordered_set<std::string_view>* pinned_;
};

}  // namespace ptxopt::switchopt
