#include "ptxopt/ir/Verifier.h"

#include <algorithm>

#include "ptxopt/ir/Cfg.h"

namespace ptxopt {
namespace {

// Does a register of type `reg` fit an operand of instruction type `inst`?
bool fits(ScalarType reg, ScalarType inst) {
  if (inst == ScalarType::None) return true;
  TypeClass rc = typeClass(reg), ic = typeClass(inst);
  if (ic == TypeClass::Pred || rc == TypeClass::Pred) return ic == rc;
  if (rc == TypeClass::Opaque || ic == TypeClass::Opaque) return true;
  if (typeBits(reg) != typeBits(inst)) return false;
  if (rc == TypeClass::Bit || ic == TypeClass::Bit) return true;
  if (ic == TypeClass::Float) return rc == TypeClass::Float;
  return rc == TypeClass::Signed || rc == TypeClass::Unsigned;
}

ScalarType widened(ScalarType t) {
  switch (t) {
    case ScalarType::S16: return ScalarType::S32;
    case ScalarType::S32: return ScalarType::S64;
    case ScalarType::U16: return ScalarType::U32;
    case ScalarType::U32: return ScalarType::U64;
    default: return ScalarType::None;
  }
}

class FunctionVerifier {
 public:
  FunctionVerifier(const Function& f, const ModuleSymbols& symbols, DiagEngine& diags, std::string_view context)
      : f_(f), m_(*f.parent()), symbols_(symbols), diags_(diags), context_(context) {}

  bool run() {
    if (!f_.hasBody) return ok_;
    collectSymbols();
    checkLayoutAndScopes();
    checkEdges();
    return ok_;
  }

 private:
  void error(SourceLoc loc, const std::string& msg) {
    ok_ = false;
    std::string text;
    if (!context_.empty()) {
      text += context_;
      text += ": ";
    }
    text += "in function '" + std::string(f_.name()) + "': " + msg;
    diags_.error(m_.fileName, loc, text);
  }

  // The function's own names; the module's are in symbols_.
  void collectSymbols() {
    for (const Variable& p : f_.params) known_.insert(p.name);
    for (const Variable& p : f_.returnParams) known_.insert(p.name);
    for (const Decl& d : f_.decls())
      if (d.kind == Decl::Kind::Var) known_.insert(d.var.name);
    for (const BasicBlock* b : f_.blocks())
      for (const Instruction* i : b->insts())
        if (i->is(Opcode::CallPrototype) || i->is(Opcode::CallTargets) || i->is(Opcode::BranchTargets))
          known_.insert(i->payload());
  }

  void checkLayoutAndScopes() {
    std::vector<uint32_t> scopeStack{0};
    std::unordered_set<const BasicBlock*> inLayout(f_.blocks().begin(), f_.blocks().end());
    tables_ = collectBranchTargetTables(f_);
    for (const BasicBlock* b : f_.blocks()) {
      if (b->parent() != &f_) error(SourceLoc{}, "block " + b->name() + " belongs to another function");
      if (b->hasLabel()) {
        if (b->label() >= f_.labels().size() || f_.labels()[b->label()].block != b)
          error(SourceLoc{}, "block " + b->name() + " and its label disagree");
      }
      bool terminated = false;
      for (const Instruction* i : b->insts()) {
        if (i->parent() != b) error(i->loc(), "instruction's parent is not its block " + b->name());
        uint32_t scope = scopeStack.back();
        if (i->is(Opcode::ScopeBegin)) {
          uint32_t s = i->payload();
          if (s >= f_.scopeParents().size() || f_.scopeParents()[s] != scope)
            error(i->loc(), "scope opened in the wrong parent scope");
          scopeStack.push_back(s);
          continue;
        }
        if (i->is(Opcode::ScopeEnd)) {
          if (scopeStack.size() == 1)
            error(i->loc(), "'}' closes no scope");
          else
            scopeStack.pop_back();
          continue;
        }
        if (i->info().isPseudo()) {
          checkOperands(*i, scope, inLayout);
          continue;
        }
        if (terminated) error(i->loc(), "instruction after the terminator of block " + b->name());
        if (i->info().isTerminator()) terminated = true;
        checkInstruction(*i, scope, inLayout);
      }
    }
    if (scopeStack.size() != 1) error(f_.loc, "a '{' scope is never closed");
  }

  void checkReg(const Instruction& i, RegId r, uint32_t scope, std::string_view what) {
    if (r >= f_.regs().size()) {
      error(i.loc(), std::string(what) + " refers to a register that does not exist");
      return;
    }
    if (!f_.scopeVisible(f_.reg(r).scope, scope))
      error(i.loc(), "register '" + f_.regName(r) + "' is used outside the scope that declares it");
  }

  void checkOperands(const Instruction& i, uint32_t scope, const std::unordered_set<const BasicBlock*>& inLayout) {
    bool prototypeText = i.is(Opcode::CallPrototype);
    i.forEachLeaf([&](const Operand& o) {
      switch (o.kind) {
        case OperandKind::Reg: checkReg(i, o.id, scope, "an operand"); break;
        case OperandKind::Address:
          if (o.addressBase() == AddressBase::Reg) checkReg(i, o.id, scope, "an address");
          if (o.addressBase() == AddressBase::Symbol && !known(o.id))
            error(i.loc(), "unknown symbol '" + std::string(m_.str(o.id)) + "' in an address");
          break;
        case OperandKind::Label: {
          if (o.id >= f_.labels().size() || !f_.labels()[o.id].block) {
            error(i.loc(), "label does not resolve");
            break;
          }
          const LabelInfo& l = f_.labels()[o.id];
          if (!inLayout.count(l.block))
            error(i.loc(), "label '" + std::string(m_.str(l.name)) + "' names a block that is no longer in the function");
          if (!f_.scopeVisible(l.scope, scope))
            error(i.loc(), "label '" + std::string(m_.str(l.name)) + "' is not visible here");
          break;
        }
        case OperandKind::Symbol:
          if (!prototypeText && !known(o.id))
            error(i.loc(), "unknown symbol '" + std::string(m_.str(o.id)) + "'");
          break;
        default: break;
      }
    });
  }

  ScalarType regType(const Operand& o) const {
    if (o.kind != OperandKind::Reg || o.component() != Component::None) return ScalarType::None;
    const RegInfo& r = f_.reg(o.id);
    if (r.vec) return ScalarType::None;
    return r.type;
  }

  void expectFit(const Instruction& i, uint32_t index, ScalarType want) {
    if (index >= i.numOperands() || want == ScalarType::None) return;
    const Operand& o = i.operand(index);
    ScalarType have = regType(o);
    if (have == ScalarType::None) return;
    if (!fits(have, want))
      error(i.loc(), "register '" + f_.regName(o.id) + "' of type " + std::string(typeName(have)) +
                         " does not fit operand " + std::to_string(index + 1) + " of type " +
                         std::string(typeName(want)) + " of '" + std::string(i.info().name) + "'");
  }

  void checkInstruction(const Instruction& i, uint32_t scope, const std::unordered_set<const BasicBlock*>& inLayout) {
    if (i.hasGuard()) {
      checkReg(i, i.guard(), scope, "the guard");
      if (i.guard() < f_.regs().size() && f_.reg(i.guard()).type != ScalarType::Pred)
        error(i.loc(), "guard '" + f_.regName(i.guard()) + "' is not a .pred register");
    }
    checkOperands(i, scope, inLayout);
    ScalarType t = i.type();
    unsigned n = i.numOperands();
    switch (i.opcode()) {
      case Opcode::Bra:
        if (n < 1 || !i.operand(n - 1).isLabel()) error(i.loc(), "bra needs a label operand");
        break;
      case Opcode::BrxIdx:
        if (n < 2 || i.operand(1).kind != OperandKind::Symbol || !tables_.count(i.operand(1).id))
          error(i.loc(), "brx.idx needs the name of a .branchtargets table");
        break;
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Min:
      case Opcode::Max:
      case Opcode::Abs:
      case Opcode::Neg:
      case Opcode::And:
      case Opcode::Or:
      case Opcode::Xor:
      case Opcode::Not:
      case Opcode::Cnot:
      case Opcode::Div:
      case Opcode::Rem:
      case Opcode::Mov:
        for (unsigned k = 0; k < n; ++k) expectFit(i, k, t);
        break;
      case Opcode::Mul:
      case Opcode::Mad: {
        bool wide = i.has(Mod::Wide);
        expectFit(i, 0, wide ? widened(t) : t);
        expectFit(i, 1, t);
        expectFit(i, 2, t);
        if (i.is(Opcode::Mad)) expectFit(i, 3, wide ? widened(t) : t);
        break;
      }
      case Opcode::Shl:
      case Opcode::Shr:
        expectFit(i, 0, t);
        expectFit(i, 1, t);
        expectFit(i, 2, ScalarType::U32);
        break;
      case Opcode::Selp:
        for (unsigned k = 0; k < 3; ++k) expectFit(i, k, t);
        expectFit(i, 3, ScalarType::Pred);
        break;
      case Opcode::Setp: {
        if (n >= 1) {
          const Operand& d = i.operand(0);
          if (d.kind == OperandKind::Pair) {
            for (const Operand& e : i.elements(d))
              if (e.isReg() && regType(e) != ScalarType::None && regType(e) != ScalarType::Pred)
                error(i.loc(), "setp writes .pred registers");
          } else {
            expectFit(i, 0, ScalarType::Pred);
          }
        }
        expectFit(i, 1, t);
        expectFit(i, 2, t);
        expectFit(i, 3, ScalarType::Pred);
        break;
      }
      default: break;
    }
  }

  void checkEdges() {
    for (size_t k = 0; k < f_.blocks().size(); ++k) {
      const BasicBlock* b = f_.blocks()[k];
      std::vector<Edge> want = computeSuccessors(f_, k, tables_);
      const std::vector<Edge>& have = b->succs();
      bool same = want.size() == have.size();
      for (size_t e = 0; same && e < want.size(); ++e)
        same = want[e].to == have[e].to && want[e].kind == have[e].kind && want[e].index == have[e].index;
      if (!same) error(SourceLoc{}, "successor edges of block " + b->name() + " do not match its terminator and layout");
    }
    // Predecessors mirror successors, counting each edge once.
    std::vector<std::vector<const BasicBlock*>> incoming(f_.blockIdBound());
    for (const BasicBlock* p : f_.blocks())
      for (const Edge& e : p->succs()) incoming[e.to->id()].push_back(p);
    for (const BasicBlock* b : f_.blocks()) {
      std::vector<const BasicBlock*>& want = incoming[b->id()];
      std::vector<const BasicBlock*> have(b->preds().begin(), b->preds().end());
      std::sort(want.begin(), want.end());
      std::sort(have.begin(), have.end());
      if (want != have) error(SourceLoc{}, "predecessor list of block " + b->name() + " does not mirror the successor edges");
    }
  }

  const Function& f_;
  const Module& m_;
  const ModuleSymbols& symbols_;
  DiagEngine& diags_;
  std::string_view context_;
  bool ok_ = true;
  std::unordered_set<uint32_t> known_;
  bool known(uint32_t name) const { return known_.count(name) || symbols_.names.count(name); }
  BranchTargetTables tables_;
};

}  // namespace

ModuleSymbols::ModuleSymbols(const Module& m) {
  for (const Variable& v : m.globals()) names.insert(v.name);
  for (const auto& fn : m.functions()) names.insert(fn->nameId());
}

bool verifyFunction(const Function& f, DiagEngine& diags, std::string_view context, const ModuleSymbols* symbols) {
  if (symbols) return FunctionVerifier(f, *symbols, diags, context).run();
  ModuleSymbols own(*f.parent());
  return FunctionVerifier(f, own, diags, context).run();
}

bool verifyModule(const Module& m, DiagEngine& diags, std::string_view context) {
  ModuleSymbols symbols(m);
  bool ok = true;
  for (const auto& f : m.functions()) ok &= verifyFunction(*f, diags, context, &symbols);
  return ok;
}

}  // namespace ptxopt
