// switch-opt: a tree of compares on one selector becomes a jump table (issue #12, seed 003
// DoSwitchOpt; docs/passes/switch-opt.md).
//
// Recognition. A *test* is a block whose only instructions are `setp.CMP.T %p, %sel, IMM` and
// `@[!]%p bra L` (T a 16- or 32-bit integer type), or the end of a block that computes the
// selector and then tests it (the root). Blocks that only jump or are empty are looked through.
// Starting at a root, the tests reachable through both edges that compare the same register
// with the same signedness form the tree (cicc's balanced compare trees, `setp.eq` cascades,
// and mixtures); the first block that is not such a test on each path is a leaf. Every
// comparison is against a constant, so evaluating the tree for each value between the smallest
// and the largest constant gives the exact target of every value, and all values below (above)
// that range reach the same block as the smallest minus one (the largest plus one). When those
// two agree, that block is the default and the values that reach another block are the cases.
//
// Lowering: `sub %i, %sel, LO; setp.gt.u32 %o, %i, SPAN-1; @%o bra DEFAULT;` then, in a new
// block, `table: .branchtargets ...; brx.idx %i, table;` with one entry per value of LO..HI
// (holes go to the default). The root's test is replaced; the other tests become unreachable
// from it (branch-opt and dce remove what nothing else reaches).
//
// Soundness: the tests' predicates must not be live at any leaf (their setps no longer run),
// and the selector is not redefined inside the tree (tests hold nothing but setp and bra).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/analysis/Uniformity.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Semantics.h"
#include "ptxopt/support/FloatBits.h"
#include "ptxopt/passes/Passes.h"

namespace ptxopt {

namespace {

struct Test {
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
  BasicBlock *ifTrue = nullptr, *ifFalse = nullptr;  // where the selector goes when the compare holds / not
};

class SwitchOpt : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    am_ = &am;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    minCases_ = k.getInt("min-cases");
    minDensity_ = k.getFloat("min-density");
    maxSpan_ = k.getInt("max-span");
    budget_ = k.getInt("budget");
    valueTable_ = k.getBool("value-table");
    maxTableBytes_ = k.getInt("max-table-bytes");
    bool changed = false;
    tried_.clear();
    for (bool again = true; again;) {
      again = false;
      const CfgInfo& cfg = am.get<CfgAnalysis>();
      const Liveness& lv = am.get<LivenessAnalysis>();
      pinned_ = pinnedLabelNames(f, collectBranchTargetTables(f));
      // Reachable blocks in reverse post-order: a tree's root before its inner tests (which a
      // lowering leaves unreachable).
      std::vector<BasicBlock*> order;
      for (const BasicBlock* b : cfg.rpo) order.push_back(const_cast<BasicBlock*>(b));
      for (BasicBlock* b : order) {
        std::optional<Test> t = testAt(b, /*root=*/true);
        if (!t || !tried_.insert(t->bra).second) continue;
        size_t i = std::find(f.blocks().begin(), f.blocks().end(), b) - f.blocks().begin();
        if (lower(i, *t, lv)) {
          buildCfg(f);
          am.invalidate(PreservedAnalyses::none());
          changed = again = true;
          break;
        }
      }
    }
    return changed ? PassResult::changed(PreservedAnalyses::none()) : PassResult::unchanged();
  }

 private:
  // The test ending `b`: setp on a register against an immediate, then the guarded bra on its
  // predicate. Outside the root the block holds nothing else, or an add (sub) of a constant to
  // the selector first, whose result the setp compares.
  std::optional<Test> testAt(BasicBlock* b, bool root) const {
    std::vector<Instruction*> real;
    for (Instruction* i : b->insts())
      if (!i->info().isPseudo()) real.push_back(i);
    Instruction* br = conditionalBranch(*b);
    if (!br || real.size() < 2 || (!root && real.size() != 2 && real.size() != 3)) return std::nullopt;
    Instruction* s = real[real.size() - 2];
    if (!s->is(Opcode::Setp) || s->hasGuard() || s->numOperands() != 3) return std::nullopt;
    const Operand& d = s->operand(0);
    if (!d.isReg() || static_cast<RegId>(d.id) != br->guard()) return std::nullopt;
    const Operand &a = s->operand(1), &c = s->operand(2);
    if (!a.isReg() || a.component() != Component::None || !c.isImm()) return std::nullopt;
    ScalarType ty = s->type(0);
    if ((typeBits(ty) != 32 && typeBits(ty) != 16) || (typeClass(ty) != TypeClass::Signed && typeClass(ty) != TypeClass::Unsigned &&
                               typeClass(ty) != TypeClass::Bit))
      return std::nullopt;
    std::optional<CmpOp> cmp;
    for (Mod m : s->mods())
      if (auto c2 = modCmp(m)) cmp = c2;
    if (!cmp) return std::nullopt;
    Test t;
    t.setp = s;
    t.bra = br;
    t.cmp = *cmp;
    t.sel = static_cast<RegId>(a.id);
    t.pred = br->guard();
    switch (*cmp) {
      case CmpOp::Eq: case CmpOp::Ne: t.isSigned = typeClass(ty) == TypeClass::Signed; break;
      case CmpOp::Lt: case CmpOp::Le: case CmpOp::Gt: case CmpOp::Ge:
        if (typeClass(ty) == TypeClass::Bit) return std::nullopt;
        t.isSigned = typeClass(ty) == TypeClass::Signed;
        break;
      case CmpOp::Lo: case CmpOp::Ls: case CmpOp::Hi: case CmpOp::Hs: t.isSigned = false; break;
      default: return std::nullopt;  // float-only comparisons
    }
    // The constant as the comparison reads it.
    t.bits = typeBits(ty);
    t.raw = t.bits == 16 ? uint32_t(uint16_t(c.value)) : uint32_t(c.value);
    t.c = valueOf(t.raw, t.bits, t.isSigned);
    if (!root && real.size() == 3) {
      Instruction* add = real[0];
      if ((!add->is(Opcode::Add) && !add->is(Opcode::Sub)) || add->hasGuard() || add->numOperands() != 3 ||
          typeBits(add->type(0)) != t.bits || typeClass(add->type(0)) == TypeClass::Float || add->mods().size() != 1)
        return std::nullopt;  // .sat, .cc and friends are not plain wrapping adds
      const Operand &ad = add->operand(0), &ax = add->operand(1), &ak = add->operand(2);
      if (!ad.isReg() || static_cast<RegId>(ad.id) != t.sel || !ax.isReg() || ax.component() != Component::None ||
          !ak.isImm() || ax.id == ad.id)
        return std::nullopt;
      t.add = add;
      t.tmp = t.sel;
      t.sel = static_cast<RegId>(ax.id);
      t.offset = uint32_t(add->is(Opcode::Add) ? ak.value : -ak.value);
    }
    BasicBlock* taken = b->successor(EdgeKind::Taken);
    BasicBlock* fall = b->successor(EdgeKind::FallThrough);
    if (!taken || !fall) return std::nullopt;
    bool takenWhenTrue = !br->guardNegated();
    t.ifTrue = takenWhenTrue ? taken : fall;
    t.ifFalse = takenWhenTrue ? fall : taken;
    return t;
  }

  // The constant's bits as the comparison reads them.
  static int64_t valueOf(uint32_t raw, unsigned bits, bool isSigned) {
    if (bits == 16) return isSigned ? int64_t(int16_t(uint16_t(raw))) : int64_t(uint16_t(raw));
    return isSigned ? int64_t(int32_t(raw)) : int64_t(raw);
  }

  // Does the test hold for selector value `v` (read in the tree's domain)? The comparison
  // reads the selector's bits plus the offset in its own signedness.
  static bool holds(const Test& t, int64_t v) {
    uint32_t mask = t.bits == 16 ? 0xffffu : 0xffffffffu;
    v = valueOf((uint32_t(v) + t.offset) & mask, t.bits, t.isSigned);
    switch (t.cmp) {
      case CmpOp::Eq: return v == t.c;
      case CmpOp::Ne: return v != t.c;
      case CmpOp::Lt: case CmpOp::Lo: return v < t.c;
      case CmpOp::Le: case CmpOp::Ls: return v <= t.c;
      case CmpOp::Gt: case CmpOp::Hi: return v > t.c;
      case CmpOp::Ge: case CmpOp::Hs: return v >= t.c;
      default: return false;
    }
  }

  // Looks through blocks that only jump or are empty.
  BasicBlock* skipJumps(BasicBlock* b) const {
    for (int guard = 0; guard < 16 && b; ++guard) {
      bool onlyJump = true;
      for (Instruction* i : b->insts())
        if (!i->info().isPseudo() && !(i == b->terminator() && i->is(Opcode::Bra) && !i->hasGuard())) onlyJump = false;
      if (!onlyJump || b->succs().size() != 1) return b;
      if (b->hasLabel() && pinned_.count(f_->labelName(b->label()))) return b;
      b = b->succs()[0].to;
    }
    return b;
  }

  bool lower(size_t rootIndex, const Test& root, const Liveness& lv) {
    BasicBlock* rootBlock = f_->blocks()[rootIndex];
    // The tree: tests on the same selector with the same signedness, by block.
    std::unordered_map<BasicBlock*, Test> tests;
    tests[rootBlock] = root;
    std::set<int64_t> constants{root.c};
    int64_t typeMin = root.bits == 16 ? (root.isSigned ? INT16_MIN : 0) : (root.isSigned ? INT32_MIN : 0);
    int64_t typeMax = root.bits == 16 ? (root.isSigned ? INT16_MAX : int64_t(UINT16_MAX))
                                      : (root.isSigned ? INT32_MAX : int64_t(UINT32_MAX));
    // The values (in the tree's domain) where a test's outcome may change, with the value just
    // before: where the compared value crosses the constant, or wraps around (unsigned or
    // signed) because of the offset.
    std::set<int64_t> edges;
    auto addEdges = [&](const Test& t) {
      uint32_t mask = t.bits == 16 ? 0xffffu : 0xffffffffu, half = t.bits == 16 ? 0x8000u : 0x80000000u;
      for (uint32_t u : {t.raw, t.raw + 1, 0u, half}) {
        int64_t v = valueOf((u - t.offset) & mask, t.bits, root.isSigned);
        if (v > typeMin && holds(t, v - 1) != holds(t, v)) {
          edges.insert(v - 1);
          edges.insert(v);
        }
      }
    };
    addEdges(root);
    std::vector<BasicBlock*> work{skipJumps(root.ifTrue), skipJumps(root.ifFalse)};
    std::unordered_set<BasicBlock*> leaves;
    while (!work.empty()) {
      BasicBlock* b = work.back();
      work.pop_back();
      if (tests.count(b) || leaves.count(b)) continue;
      std::optional<Test> t = testAt(b, false);
      if (t && t->sel == root.sel && t->bits == root.bits && t->tmp != root.sel && int64_t(tests.size()) < budget_ &&
          b != f_->entry()) {
        tests[b] = *t;
        constants.insert(valueOf((t->raw - t->offset) & (t->bits == 16 ? 0xffffu : 0xffffffffu), t->bits, root.isSigned));
        addEdges(*t);
        work.push_back(skipJumps(t->ifTrue));
        work.push_back(skipJumps(t->ifFalse));
      } else {
        leaves.insert(b);
      }
    }
    // A tree is decided once, from its root: its inner tests are not roots of their own.
    for (auto& [b, t] : tests) tried_.insert(t.bra);
    std::string where = "compare tree at line " + std::to_string(root.bra->loc().line) + " (" +
                        std::to_string(tests.size()) + " tests, " + std::to_string(constants.size()) + " constants)";
    auto refuse = [&](const std::string& reason, const std::string& text) {
      ctx_->count("refused-" + reason);
      ctx_->remark(rootBlock, "keep", where + ": " + text, {{"line", double(root.bra->loc().line)}});
      return false;
    };
    if (tests.size() < 2) return false;  // a plain branch, not a switch
    auto target = [&](int64_t v) {
      BasicBlock* b = rootBlock;
      for (size_t steps = 0; steps <= tests.size(); ++steps) {
        auto it = tests.find(b);
        if (it == tests.end()) return b;
        b = skipJumps(holds(it->second, v) ? it->second.ifTrue : it->second.ifFalse);
      }
      return static_cast<BasicBlock*>(nullptr);  // a cycle among the tests
    };
    // Every value below `lo` takes the same path as `lo`, every value above `hi` as `hi`.
    if (edges.empty()) return refuse("no-cases", "every value takes the same path");
    int64_t lo = *edges.begin(), hi = *edges.rbegin();
    BasicBlock* below = lo > typeMin ? target(lo - 1) : nullptr;
    BasicBlock* above = hi < typeMax ? target(hi + 1) : nullptr;
    BasicBlock* dflt = below ? below : above;
    if (!dflt || (below && above && below != above))
      return refuse("no-default", "the values below and above the constants go to different blocks");
    if (hi - lo + 1 > 4 * maxSpan_) return refuse("span", "constants spread over more than 4 x max-span values");
    std::map<int64_t, BasicBlock*> cases;
    for (int64_t v = lo; v <= hi; ++v) {
      BasicBlock* t = target(v);
      if (!t) return refuse("cycle", "the tests form a cycle");
      if (t != dflt) cases[v] = t;
    }
    if (cases.empty()) return refuse("no-cases", "every value reaches the default");
    int64_t first = cases.begin()->first, last = cases.rbegin()->first, span = last - first + 1;
    double density = double(cases.size()) / double(span);
    where += ": " + std::to_string(cases.size()) + " cases over " + std::to_string(span) + " values";
    if (int64_t(cases.size()) < minCases_)
      return refuse("cost", std::to_string(cases.size()) + " cases against min-cases " + std::to_string(minCases_));
    if (span > maxSpan_) return refuse("cost", "a span of " + std::to_string(span) + " against max-span " + std::to_string(maxSpan_));
    if (density < minDensity_)
      return refuse("cost", "density " + std::to_string(density).substr(0, 4) + " against min-density " +
                                std::to_string(minDensity_).substr(0, 4));
    // The tests' predicates no longer get their values.
    std::set<BasicBlock*> targets{dflt};
    for (auto& [v, b] : cases) targets.insert(b);
    for (auto& [b, t] : tests)
      for (BasicBlock* l : targets)
        if (lv.liveIn[l->id()].test(t.pred) || (t.add && lv.liveIn[l->id()].test(t.tmp)))
          return refuse("live", "the " + std::string(lv.liveIn[l->id()].test(t.pred) ? "predicate" : "offset selector") +
                                    " of the test at line " + std::to_string(t.bra->loc().line) + " is read later");
    for (BasicBlock* l : targets)
      if (!l->hasLabel() && l == f_->entry()) return refuse("entry", "a case reaches the entry block");
    if (valueTable_) {
      std::string why;
      if (std::optional<ValueTable> vt = planValueTable(rootBlock, root, tests, cases, dflt, first, last, lv, why)) {
        emitValueTable(rootIndex, root, *vt, first, span, where, density);
        ctx_->count("cases", cases.size());
        return true;
      }
      ctx_->remark(rootBlock, "no-value-table", where + ": " + why, {{"line", double(root.bra->loc().line)}});
    }

    // Lowering.
    for (BasicBlock* l : targets)
      if (!l->hasLabel()) f_->addLabel(l, "$Lsw");
    RegId idx = emitIndex(rootBlock, root, first);
    RegId oor = f_->addRegister(ScalarType::Pred, "%swp");
    auto& rv = rootBlock->insts();
    Instruction* check = f_->createInstruction(Opcode::Setp);
    check->addMod(cmpMod(CmpOp::Gt));
    check->addMod(typeMod(ScalarType::U32));
    check->addOperand(Operand::reg(oor));
    check->addOperand(Operand::reg(idx));
    check->addOperand(Operand::imm(span - 1));
    Instruction* toDefault = f_->createInstruction(Opcode::Bra);
    toDefault->addOperand(Operand::label(dflt->label()));
    toDefault->setGuard(oor, false);
    for (Instruction* i : {check, toDefault}) {
      place(root, i)->setParent(rootBlock);
      rv.push_back(i);
    }
    BasicBlock* dispatch = f_->createBlock();
    Instruction* table = f_->createInstruction(Opcode::BranchTargets);
    uint32_t tableName = f_->parent()->intern(f_->freshName("$Lswt"));
    table->setPayload(tableName);
    for (int64_t v = first; v <= last; ++v) {
      auto it = cases.find(v);
      table->addOperand(Operand::label((it == cases.end() ? dflt : it->second)->label()));
    }
    Instruction* brx = f_->createInstruction(Opcode::BrxIdx);
    brx->addOperand(Operand::reg(idx));
    brx->addOperand(Operand::symbol(tableName));
    for (Instruction* i : {table, brx}) {
      place(root, i)->setParent(dispatch);
      dispatch->append(i);
    }
    auto& blocks = f_->blocks();
    blocks.insert(blocks.begin() + long(rootIndex) + 1, dispatch);
    ctx_->count("jump-tables");
    ctx_->count("cases", cases.size());
    ctx_->remark(rootBlock, "jump-table", where + ", density " + std::to_string(density).substr(0, 4),
                 {{"line", double(root.bra->loc().line)}, {"cases", double(cases.size())}, {"span", double(span)}});
    return true;
  }

  static Instruction* place(const Test& root, Instruction* i) {
    i->setLoc(root.bra->loc());
    i->setDebugLoc(root.bra->debugLoc());
    return i;
  }

  Instruction* append(BasicBlock* b, const Test& root, Instruction* i) {
    place(root, i)->setParent(b);
    b->append(i);
    return i;
  }

  // Removes the root's test and appends the table index to the root: the selector minus the
  // first case, widened first when the selector has 16 bits (sign- or zero-extended as the
  // tests read it). A 32-bit selector whose table starts at 0 is its own index.
  RegId emitIndex(BasicBlock* rootBlock, const Test& root, int64_t first) {
    auto& rv = rootBlock->insts();
    rv.erase(std::find(rv.begin(), rv.end(), root.bra));
    rv.erase(std::find(rv.begin(), rv.end(), root.setp));
    RegId wide = root.sel;
    if (root.bits == 16) {
      wide = f_->addRegister(ScalarType::U32, "%swi");
      Instruction* widen = f_->createInstruction(Opcode::Cvt);
      widen->addMod(typeMod(root.isSigned ? ScalarType::S32 : ScalarType::U32));
      widen->addMod(typeMod(root.isSigned ? ScalarType::S16 : ScalarType::U16));
      widen->addOperand(Operand::reg(wide));
      widen->addOperand(Operand::reg(root.sel));
      append(rootBlock, root, widen);
    }
    if (first == 0) return wide;
    RegId idx = f_->addRegister(ScalarType::U32, "%swi");
    Instruction* sub = f_->createInstruction(Opcode::Sub);
    sub->addMod(typeMod(ScalarType::S32));
    sub->addOperand(Operand::reg(idx));
    sub->addOperand(Operand::reg(wide));
    sub->addOperand(Operand::imm(int64_t(int32_t(uint32_t(first)))));
    append(rootBlock, root, sub);
    return idx;
  }

  // ---- value tables (switch-to-lookup-table) ---------------------------------------------
  //
  // When every target of the switch only assigns constants (unguarded `mov REG, IMM`) and then
  // goes on to one join block, or is that join block itself (the registers then keep what the
  // root gave them, which must be constants too), the switch is a table lookup: one row per
  // value of the span, a column per register, and one more row for the default when the
  // default assigns constants as well (`min.u32` sends every value out of range to it).

  struct Column {
    RegId reg = kNoReg;
    unsigned bytes = 4;
    uint32_t offset = 0;
  };
  struct ValueTable {
    BasicBlock* join = nullptr;
    BasicBlock* branchDefault = nullptr;  // the default, when it is not a row of the table
    std::vector<Column> columns;
    std::vector<std::map<RegId, uint64_t>> rows;  // span rows, then the default's row if any
    uint32_t stride = 0;
    bool divergent = true;
  };

  // The constant an unguarded `mov REG, IMM` writes, with its size; nullopt for anything else.
  static std::optional<std::pair<uint64_t, unsigned>> movedConstant(const Instruction& i) {
    if (!i.is(Opcode::Mov) || i.hasGuard() || i.numOperands() != 2 || !i.operand(0).isReg() ||
        i.operand(0).component() != Component::None)
      return std::nullopt;
    ScalarType ty = i.type(0);
    unsigned bits = typeBits(ty);
    if (bits != 16 && bits != 32 && bits != 64) return std::nullopt;
    const Operand& src = i.operand(1);
    if (typeClass(ty) == TypeClass::Float) {
      std::optional<double> d = immediateAsFloat(src, ty);
      if (!d || std::isnan(*d)) return std::nullopt;  // NaN payloads: not worth the risk
      return std::make_pair(ty == ScalarType::F32 ? uint64_t(floatBits(float(*d))) : doubleBits(*d), bits / 8);
    }
    std::optional<uint64_t> v = immediateAsInt(src, ty);
    if (!v) return std::nullopt;
    uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    return std::make_pair(*v & mask, bits / 8);
  }

  // The constants block `t` assigns and the block it then goes to; nullopt when `t` does
  // anything else.
  std::optional<std::pair<std::map<RegId, std::pair<uint64_t, unsigned>>, BasicBlock*>> constantsBlock(BasicBlock* t) const {
    std::map<RegId, std::pair<uint64_t, unsigned>> values;
    for (Instruction* i : t->insts()) {
      if (i->info().isPseudo()) continue;
      if (i == t->terminator() && i->is(Opcode::Bra) && !i->hasGuard()) continue;
      std::optional<std::pair<uint64_t, unsigned>> c = movedConstant(*i);
      if (!c) return std::nullopt;
      values[static_cast<RegId>(i->operand(0).id)] = *c;
    }
    if (values.empty() || t->succs().size() != 1) return std::nullopt;
    return std::make_pair(values, skipJumps(t->succs()[0].to));
  }

  std::optional<ValueTable> planValueTable(BasicBlock* rootBlock, const Test& root,
                                           const std::unordered_map<BasicBlock*, Test>& tests,
                                           const std::map<int64_t, BasicBlock*>& cases, BasicBlock* dflt, int64_t first,
                                           int64_t last, const Liveness& lv, std::string& why) {
    (void)lv;
    if (f_->parent()->addressSize != 64) {
      why = "the module's addresses are not 64-bit";
      return std::nullopt;
    }
    // Each target's constants, and the join block.
    std::set<BasicBlock*> targets{dflt};
    for (auto& [v, b] : cases) targets.insert(b);
    std::map<BasicBlock*, std::map<RegId, std::pair<uint64_t, unsigned>>> assigns;
    std::vector<BasicBlock*> plain;  // targets that assign nothing
    ValueTable vt;
    for (BasicBlock* t : targets) {
      auto c = constantsBlock(t);
      if (!c) {
        plain.push_back(t);
        continue;
      }
      if (vt.join && vt.join != c->second) {
        why = "the cases go on to different blocks";
        return std::nullopt;
      }
      vt.join = c->second;
      assigns[t] = std::move(c->first);
    }
    if (!vt.join) {
      why = "no case only assigns constants";
      return std::nullopt;
    }
    if (vt.join == rootBlock || tests.count(vt.join)) {
      why = "the cases go back into the switch";
      return std::nullopt;
    }
    for (BasicBlock* t : plain) {
      if (t == vt.join) continue;
      if (t != dflt) {
        why = "a case does more than assign constants";
        return std::nullopt;
      }
      vt.branchDefault = dflt;  // the default stays a branch; its values are not rows
    }
    // The registers, their sizes, and what the root leaves in them.
    std::map<RegId, unsigned> size;
    for (auto& [t, a] : assigns)
      for (auto& [r, c] : a) {
        auto [it, fresh] = size.emplace(r, c.second);
        if (!fresh && it->second != c.second) {
          why = "a register is assigned with different sizes";
          return std::nullopt;
        }
      }
    std::map<RegId, uint64_t> rootValues;
    for (auto& [r, bytes] : size) {
      auto& insts = rootBlock->insts();
      for (auto it = std::find(insts.begin(), insts.end(), root.setp); it != insts.begin();) {
        Instruction* i = *--it;
        bool writes = false;
        RegId reg = r;
        i->forEachDefReg([&](RegId d) { writes |= d == reg; });
        if (!writes) continue;
        if (auto c = movedConstant(*i); c && c->second == bytes) rootValues[r] = c->first;
        break;
      }
    }
    auto rowOf = [&](BasicBlock* t, std::map<RegId, uint64_t>& row) {
      auto a = assigns.find(t);
      for (auto& [r, bytes] : size) {
        if (a != assigns.end() && a->second.count(r)) {
          row[r] = a->second.at(r).first;
        } else if (rootValues.count(r)) {
          row[r] = rootValues[r];
        } else {
          why = "a path keeps a register the root does not set to a constant";
          return false;
        }
      }
      return true;
    };
    for (int64_t v = first; v <= last; ++v) {
      auto it = cases.find(v);
      BasicBlock* t = it == cases.end() ? dflt : it->second;
      if (t == vt.branchDefault) {
        why = "a hole reaches a default that does more than assign constants";
        return std::nullopt;
      }
      if (!rowOf(t, vt.rows.emplace_back())) return std::nullopt;
    }
    if (!vt.branchDefault && !rowOf(dflt, vt.rows.emplace_back())) return std::nullopt;
    // Columns: widest first, so that every column is aligned.
    for (auto& [r, bytes] : size) vt.columns.push_back({r, bytes, 0});
    std::stable_sort(vt.columns.begin(), vt.columns.end(), [](const Column& a, const Column& b) { return a.bytes > b.bytes; });
    for (Column& c : vt.columns) {
      c.offset = vt.stride;
      vt.stride += c.bytes;
    }
    unsigned widest = vt.columns.front().bytes;
    vt.stride = (vt.stride + widest - 1) / widest * widest;
    if (uint64_t(vt.stride) * vt.rows.size() > uint64_t(maxTableBytes_)) {
      why = "the table would take " + std::to_string(vt.stride * vt.rows.size()) + " bytes, more than max-table-bytes";
      return std::nullopt;
    }
    vt.divergent = am_->get<UniformityAnalysis>().isDivergentBranch(rootBlock);
    return vt;
  }

  void emitValueTable(size_t rootIndex, const Test& root, const ValueTable& vt, int64_t first, int64_t span,
                      const std::string& where, double density) {
    BasicBlock* rootBlock = f_->blocks()[rootIndex];
    if (!vt.join->hasLabel()) f_->addLabel(vt.join, "$Lsw");
    if (vt.branchDefault && !vt.branchDefault->hasLabel()) f_->addLabel(vt.branchDefault, "$Lsw");
    // The table: a byte array in the function, in .const space for a uniform selector (one
    // constant-cache read per warp) and in .global space, read through the non-coherent
    // cache, for a divergent one (constant-cache reads of different addresses serialize).
    StateSpace space = vt.divergent ? StateSpace::Global : StateSpace::Const;
    std::string name = f_->freshName("$swv");
    uint32_t nameId = f_->parent()->intern(name);
    Decl d;
    d.kind = Decl::Kind::Var;
    d.var.space = space;
    d.var.align = vt.columns.front().bytes;
    d.var.type = ScalarType::B8;
    d.var.name = nameId;
    d.var.dims = {int64_t(vt.stride * vt.rows.size())};
    d.var.hasInit = true;
    d.var.loc = root.bra->loc();
    d.loc = root.bra->loc();
    d.var.init.push_back(InitItem{InitItem::Kind::Open, 0, 0, 0});
    for (const auto& row : vt.rows) {
      std::vector<uint8_t> bytes(vt.stride, 0);
      for (const Column& c : vt.columns) {
        uint64_t v = row.at(c.reg);
        for (unsigned k = 0; k < c.bytes; ++k) bytes[c.offset + k] = uint8_t(v >> (8 * k));
      }
      for (uint8_t b : bytes) d.var.init.push_back(InitItem{InitItem::Kind::Int, 0, 0, int64_t(b)});
    }
    d.var.init.push_back(InitItem{InitItem::Kind::Close, 0, 0, 0});
    f_->decls().push_back(std::move(d));  // after the others: instructions of nested scopes name decls by index

    RegId idx = emitIndex(rootBlock, root, first);
    BasicBlock* loads = rootBlock;
    if (vt.branchDefault) {
      RegId oor = f_->addRegister(ScalarType::Pred, "%swp");
      Instruction* check = f_->createInstruction(Opcode::Setp);
      check->addMod(cmpMod(CmpOp::Gt));
      check->addMod(typeMod(ScalarType::U32));
      check->addOperand(Operand::reg(oor));
      check->addOperand(Operand::reg(idx));
      check->addOperand(Operand::imm(span - 1));
      append(rootBlock, root, check);
      Instruction* toDefault = f_->createInstruction(Opcode::Bra);
      toDefault->addOperand(Operand::label(vt.branchDefault->label()));
      toDefault->setGuard(oor, false);
      append(rootBlock, root, toDefault);
      loads = f_->createBlock();
      auto& blocks = f_->blocks();
      blocks.insert(blocks.begin() + long(rootIndex) + 1, loads);
    } else {
      // Every value out of range reads the default's row, the last.
      RegId clamped = f_->addRegister(ScalarType::U32, "%swi");
      Instruction* mn = f_->createInstruction(Opcode::Min);
      mn->addMod(typeMod(ScalarType::U32));
      mn->addOperand(Operand::reg(clamped));
      mn->addOperand(Operand::reg(idx));
      mn->addOperand(Operand::imm(span));
      append(rootBlock, root, mn);
      idx = clamped;
    }
    RegId base = f_->addRegister(ScalarType::U64, "%swa");
    RegId off = f_->addRegister(ScalarType::U64, "%swa");
    RegId addr = f_->addRegister(ScalarType::U64, "%swa");
    Instruction* mv = f_->createInstruction(Opcode::Mov);
    mv->addMod(typeMod(ScalarType::U64));
    mv->addOperand(Operand::reg(base));
    mv->addOperand(Operand::symbol(nameId));
    append(loads, root, mv);
    Instruction* mul = f_->createInstruction(Opcode::Mul);
    mul->addMod(Mod::Wide);
    mul->addMod(typeMod(ScalarType::U32));
    mul->addOperand(Operand::reg(off));
    mul->addOperand(Operand::reg(idx));
    mul->addOperand(Operand::imm(vt.stride));
    append(loads, root, mul);
    Instruction* add = f_->createInstruction(Opcode::Add);
    add->addMod(typeMod(ScalarType::S64));
    add->addOperand(Operand::reg(addr));
    add->addOperand(Operand::reg(base));
    add->addOperand(Operand::reg(off));
    append(loads, root, add);
    for (const Column& c : vt.columns) {
      Instruction* ld = f_->createInstruction(Opcode::Ld);
      ld->addMod(spaceMod(space));
      if (space == StateSpace::Global) ld->addMod(Mod::Nc);
      ld->addMod(typeMod(c.bytes == 8 ? ScalarType::B64 : c.bytes == 4 ? ScalarType::B32 : ScalarType::B16));
      ld->addOperand(Operand::reg(c.reg));
      Operand a;
      a.kind = OperandKind::Address;
      a.aux = static_cast<uint16_t>(AddressBase::Reg);
      a.id = addr;
      a.value = c.offset;
      ld->addOperand(a);
      append(loads, root, ld);
    }
    Instruction* toJoin = f_->createInstruction(Opcode::Bra);
    toJoin->addOperand(Operand::label(vt.join->label()));
    append(loads, root, toJoin);
    ctx_->count("value-tables");
    ctx_->remark(rootBlock, "value-table",
                 where + ", density " + std::to_string(density).substr(0, 4) + ": " + std::to_string(vt.columns.size()) +
                     " registers, " + std::to_string(vt.stride * vt.rows.size()) + " bytes in " +
                     (vt.divergent ? ".global (divergent selector)" : ".const (uniform selector)"),
                 {{"line", double(root.bra->loc().line)}, {"span", double(span)}, {"registers", double(vt.columns.size())}});
  }

  Function* f_ = nullptr;
  FunctionAnalysisManager* am_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_set<const Instruction*> tried_;
  int64_t minCases_ = 4, maxSpan_ = 256, budget_ = 64, maxTableBytes_ = 1024;
  bool valueTable_ = true;
  double minDensity_ = 0.4;
};

}  // namespace

PassInfo switchOptPassInfo() {
  return {"switch-opt",
          "a tree or cascade of compares of one register against constants becomes a range check and a brx.idx jump table",
          "003, DoSwitchOpt (phases 14 and 30)",
          {
              {"min-cases", KnobType::Int, "4", "fewest cases (values that do not reach the default) for a jump table"},
              {"min-density", KnobType::Float, "0.4", "fewest cases per value of the table's span"},
              {"max-span", KnobType::Int, "256", "most entries of one table"},
              {"budget", KnobType::Int, "64", "most compare tests gathered into one switch (the seed's SwitchOptBudget)"},
              {"value-table", KnobType::Bool, "true", "a switch whose cases only assign constants becomes a table of those constants and loads"},
              {"max-table-bytes", KnobType::Int, "1024", "largest value table"},
          },
          [] { return std::make_unique<SwitchOpt>(); }};
}

}  // namespace ptxopt
