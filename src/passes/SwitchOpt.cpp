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
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Liveness.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Module.h"
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
  BasicBlock *ifTrue = nullptr, *ifFalse = nullptr;  // where the selector goes when the compare holds / not
};

class SwitchOpt : public Pass {
 public:
  PassResult run(Function& f, FunctionAnalysisManager& am, PassContext& ctx) override {
    f_ = &f;
    ctx_ = &ctx;
    const KnobValues& k = ctx.knobs();
    minCases_ = k.getInt("min-cases");
    minDensity_ = k.getFloat("min-density");
    maxSpan_ = k.getInt("max-span");
    budget_ = k.getInt("budget");
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
  // predicate. Outside the root the block holds nothing else.
  std::optional<Test> testAt(BasicBlock* b, bool root) const {
    std::vector<Instruction*> real;
    for (Instruction* i : b->insts())
      if (!i->info().isPseudo()) real.push_back(i);
    Instruction* br = conditionalBranch(*b);
    if (!br || real.size() < 2 || (!root && real.size() != 2)) return std::nullopt;
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

  static bool holds(const Test& t, int64_t v) {
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
    std::vector<BasicBlock*> work{skipJumps(root.ifTrue), skipJumps(root.ifFalse)};
    std::unordered_set<BasicBlock*> leaves;
    while (!work.empty()) {
      BasicBlock* b = work.back();
      work.pop_back();
      if (tests.count(b) || leaves.count(b)) continue;
      std::optional<Test> t = testAt(b, false);
      // Equality tests read the constant as the tree does; ordered ones must agree with it.
      bool equality = t && (t->cmp == CmpOp::Eq || t->cmp == CmpOp::Ne);
      if (equality && t->bits == root.bits) {
        t->isSigned = root.isSigned;
        t->c = valueOf(t->raw, t->bits, root.isSigned);
      }
      if (t && t->sel == root.sel && t->isSigned == root.isSigned && t->bits == root.bits && int64_t(tests.size()) < budget_ && b != f_->entry()) {
        tests[b] = *t;
        constants.insert(t->c);
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
    int64_t lo = *constants.begin(), hi = *constants.rbegin();
    int64_t typeMin = root.bits == 16 ? (root.isSigned ? INT16_MIN : 0) : (root.isSigned ? INT32_MIN : 0);
    int64_t typeMax = root.bits == 16 ? (root.isSigned ? INT16_MAX : int64_t(UINT16_MAX))
                                      : (root.isSigned ? INT32_MAX : int64_t(UINT32_MAX));
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
        if (lv.liveIn[l->id()].test(t.pred))
          return refuse("live", "the predicate of the test at line " + std::to_string(t.bra->loc().line) + " is read later");
    for (BasicBlock* l : targets)
      if (!l->hasLabel() && l == f_->entry()) return refuse("entry", "a case reaches the entry block");

    // Lowering.
    const Instruction& at = *root.bra;
    auto place = [&](Instruction* i) {
      i->setLoc(at.loc());
      i->setDebugLoc(at.debugLoc());
      return i;
    };
    for (BasicBlock* l : targets)
      if (!l->hasLabel()) f_->addLabel(l, "$Lsw");
    // The index: the selector itself when it is 32 bits wide and the table starts at 0; a
    // 16-bit selector is widened first (sign- or zero-extended as the tests read it).
    RegId wide = root.sel;
    Instruction* widen = nullptr;
    if (root.bits == 16) {
      wide = f_->addRegister(ScalarType::U32, "%swi");
      widen = f_->createInstruction(Opcode::Cvt);
      widen->addMod(typeMod(root.isSigned ? ScalarType::S32 : ScalarType::U32));
      widen->addMod(typeMod(root.isSigned ? ScalarType::S16 : ScalarType::U16));
      widen->addOperand(Operand::reg(wide));
      widen->addOperand(Operand::reg(root.sel));
    }
    RegId idx = first == 0 ? wide : f_->addRegister(ScalarType::U32, "%swi");
    RegId oor = f_->addRegister(ScalarType::Pred, "%swp");
    auto& rv = rootBlock->insts();
    rv.erase(std::find(rv.begin(), rv.end(), root.bra));
    rv.erase(std::find(rv.begin(), rv.end(), root.setp));
    Instruction* sub = nullptr;
    if (first != 0) {
      sub = f_->createInstruction(Opcode::Sub);
      sub->addMod(typeMod(ScalarType::S32));
      sub->addOperand(Operand::reg(idx));
      sub->addOperand(Operand::reg(wide));
      sub->addOperand(Operand::imm(int64_t(int32_t(uint32_t(first)))));
    }
    Instruction* check = f_->createInstruction(Opcode::Setp);
    check->addMod(cmpMod(CmpOp::Gt));
    check->addMod(typeMod(ScalarType::U32));
    check->addOperand(Operand::reg(oor));
    check->addOperand(Operand::reg(idx));
    check->addOperand(Operand::imm(span - 1));
    Instruction* toDefault = f_->createInstruction(Opcode::Bra);
    toDefault->addOperand(Operand::label(dflt->label()));
    toDefault->setGuard(oor, false);
    for (Instruction* i : {widen, sub, check, toDefault}) {
      if (!i) continue;
      place(i)->setParent(rootBlock);
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
      place(i)->setParent(dispatch);
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

  Function* f_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::unordered_set<std::string_view> pinned_;
  std::unordered_set<const Instruction*> tried_;
  int64_t minCases_ = 4, maxSpan_ = 256, budget_ = 64;
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
          },
          [] { return std::make_unique<SwitchOpt>(); }};
}

}  // namespace ptxopt
