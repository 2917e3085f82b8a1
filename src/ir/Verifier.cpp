#include "ptxopt/ir/Verifier.h"

#include <algorithm>
#include <charconv>
#include <deque>

#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Signature.h"
#include "ptxopt/support/NameMap.h"

namespace ptxopt {
namespace {

// Does a register of type `reg` fit an operand of type `want`? Same size (or, with `wider`,
// at least the size: ld, st and cvt), predicates only with predicates, float operands take
// float or bit registers, integer operands integer or bit registers.
bool regFits(ScalarType reg, ScalarType want, bool wider) {
  if (want == ScalarType::None) return true;
  TypeClass rc = typeClass(reg), wc = typeClass(want);
  if (wc == TypeClass::Pred || rc == TypeClass::Pred) return wc == rc;
  if (rc == TypeClass::Opaque || wc == TypeClass::Opaque) return true;
  if (wider ? typeBits(reg) < typeBits(want) : typeBits(reg) != typeBits(want)) return false;
  if (rc == TypeClass::Bit || wc == TypeClass::Bit) return true;
  if (wc == TypeClass::Float) return rc == TypeClass::Float;
  return rc == TypeClass::Signed || rc == TypeClass::Unsigned;
}

// Immediates: integers where an integer, bit or predicate operand is read, float literals
// where a float operand is read (ptxas rejects `add.f32 %f1, %f2, 1`), and where a bit operand
// of the literal's width is: 0f... for .b32, 0d... and decimal ones for .b64 (ptxas rejects
// `shl.b64 %rd1, 0f3F800000, 2` and `mov.b32 %r1, 1.0`).
bool immediateFits(const Operand& o, ScalarType want) {
  if (want == ScalarType::None) return true;
  TypeClass wc = typeClass(want);
  if (wc == TypeClass::Opaque) return true;
  if (o.kind == OperandKind::FImm) {
    if (wc == TypeClass::Bit) return typeBits(want) == (static_cast<FloatForm>(o.aux) == FloatForm::F32Hex ? 32u : 64u);
    return wc == TypeClass::Float;
  }
  return wc != TypeClass::Float;
}

// The space an address names, folded: .shared::cta is .shared, .param::entry is .param.
StateSpace foldSpace(StateSpace s) {
  if (isSharedSpace(s)) return StateSpace::Shared;
  if (isParamSpace(s) || s == StateSpace::Reg) return StateSpace::Param;
  return s;
}

std::string ordinal(uint32_t k) { return "operand " + std::to_string(k + 1); }

// "operand 2 (a) of 'add'", spelled out only when a message needs it: most operands are fine.
struct OperandName {
  uint32_t k;
  std::string_view role;
  std::string_view opcode;
  std::string str() const { return ordinal(k) + " (" + std::string(role) + ") of '" + std::string(opcode) + "'"; }
};
std::string operator+(const OperandName& n, std::string_view s) { return n.str().append(s); }
std::string operator+(std::string s, const OperandName& n) { return s.append(n.str()); }

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
    auto add = [&](const Variable& v) {
      known_.insert(v.name);
      spaces_[v.name] |= 1u << static_cast<unsigned>(foldSpace(v.space));
    };
    for (const Variable& p : f_.params) add(p);
    for (const Variable& p : f_.returnParams) add(p);
    for (const Decl& d : f_.decls())
      if (d.kind == Decl::Kind::Var) add(d.var);
    for (const BasicBlock* b : f_.blocks())
      for (const Instruction* i : b->insts())
        if (i->is(Opcode::CallPrototype) || i->is(Opcode::CallTargets) || i->is(Opcode::BranchTargets))
          known_.insert(i->payload());
  }

  // Registers that share their printed name with a register declared in a `{ }` scope nested
  // inside theirs: by RegId, those others of that name.
  void collectSharedNames() {
    sameName_.clear();
    // Registers all declared in the body shadow nothing (checkReg compares scopes).
    bool nested = false;
    for (const RegInfo& r : f_.regs()) nested |= r.scope != 0;
    if (!nested) return;
    // Only a name that a nested scope declares can be shared across scopes: those names
    // first, then every register printed as one of them, in RegId order.
    std::string buffer;
    auto printed = [&](RegId r) -> std::string_view {
      const RegInfo& info = f_.reg(r);
      buffer = m_.str(info.name);
      if (info.ranged) {
        char digits[16];
        buffer.append(digits, std::to_chars(digits, digits + sizeof digits, info.index).ptr);
      }
      return buffer;
    };
    std::deque<std::string> names;  // the keys of `group` (a deque does not move them)
    NameMap<uint32_t> group;        // printed name -> index in `members`
    std::vector<std::vector<RegId>> members;
    for (RegId r = 0; r < f_.regs().size(); ++r)
      if (f_.reg(r).scope != 0 && !group.find(printed(r))) {
        names.push_back(buffer);
        group.insert(names.back(), static_cast<uint32_t>(members.size()));
        members.emplace_back();
      }
    // A ranged register prints as its prefix and index: it is printed only when its prefix
    // begins one of those names and digits follow (asked once per range).
    NameMap<bool> prefixes;
    for (const std::string& name : names)
      for (size_t cut = name.size(); cut > 0 && name[cut - 1] >= '0' && name[cut - 1] <= '9'; --cut)
        if (cut > 1) prefixes.insert(std::string_view(name).substr(0, cut - 1), true);
    uint32_t lastPrefix = UINT32_MAX;
    bool prefixMatches = false;
    for (RegId r = 0; r < f_.regs().size(); ++r) {
      const RegInfo& info = f_.reg(r);
      if (info.ranged && info.name != lastPrefix) {
        lastPrefix = info.name;
        prefixMatches = prefixes.find(m_.str(info.name)) != nullptr;
      }
      if (info.ranged && !prefixMatches) continue;
      if (const uint32_t* g = group.find(info.ranged ? printed(r) : m_.str(info.name))) members[*g].push_back(r);
    }
    // Of the others of r's name, only those declared in a scope nested inside r's can shadow
    // it (checkReg): the others are left out.
    sameName_.assign(f_.regs().size(), {});
    for (const std::vector<RegId>& regs : members)
      if (regs.size() > 1)
        for (RegId r : regs)
          for (RegId o : regs) {
            uint32_t rs = f_.reg(r).scope, os = f_.reg(o).scope;
            if (o != r && os != rs && f_.scopeVisible(rs, os)) sameName_[r].push_back(o);
          }
  }

  void checkLayoutAndScopes() {
    collectSharedNames();
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
    if (!f_.scopeVisible(f_.reg(r).scope, scope)) {
      error(i.loc(), "register '" + f_.regName(r) + "' is used outside the scope that declares it");
      return;
    }
    // Printed, the name means the register of the innermost scope that declares it here: a
    // register of the same name declared in a scope nested inside r's and visible here
    // shadows r (an instruction moved into that scope would name the other one).
    if (r < sameName_.size())
      for (RegId o : sameName_[r]) {
        uint32_t os = f_.reg(o).scope;
        if (os != f_.reg(r).scope && f_.scopeVisible(os, scope) && f_.scopeVisible(f_.reg(r).scope, os))
          error(i.loc(), "register '" + f_.regName(r) + "' is shadowed here by the register of that name an inner scope declares");
      }
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
    if (o.kind != OperandKind::Reg || o.component() != Component::None || o.id >= f_.regs().size()) return ScalarType::None;
    const RegInfo& r = f_.reg(o.id);
    if (r.vec) return ScalarType::None;
    return r.type;
  }

  void checkInstruction(const Instruction& i, uint32_t scope, const std::unordered_set<const BasicBlock*>& inLayout) {
    if (i.hasGuard()) {
      checkReg(i, i.guard(), scope, "the guard");
      if (i.guard() < f_.regs().size() && f_.reg(i.guard()).type != ScalarType::Pred)
        error(i.loc(), "guard '" + f_.regName(i.guard()) + "' is not a .pred register");
    }
    checkOperands(i, scope, inLayout);
    checkShape(i);
  }

  // The operands against the instruction's signature (Opcodes.def).
  void checkShape(const Instruction& i) {
    if (signatureOf(i.opcode()).isFree()) return;
    std::string_view name = i.info().name;
    const OperandShape* shape = selectShape(i);
    if (!shape) {
      error(i.loc(), "'" + std::string(name) + "' takes " + describeShapes(i) + ", not " + std::to_string(i.numOperands()) +
                         " operand" + (i.numOperands() == 1 ? "" : "s"));
      return;
    }
    if ((shape->usesT && i.type(0) == ScalarType::None) || (shape->usesT2 && i.type(1) == ScalarType::None)) {
      std::string unknown;
      for (Mod m : i.mods())
        if (!isKnownMod(m)) unknown += (unknown.empty() ? "" : ", ") + std::string("'") + std::string(modName(m, m_.strings())) + "'";
      error(i.loc(), "'" + std::string(name) + "' needs " + (shape->usesT2 ? "two type modifiers" : "a type modifier") +
                         " (.s32, .f32, ...)" + (unknown.empty() ? "" : "; " + unknown + " is not a type"));
      return;
    }
    if (shape->restrictsType() && i.type(0) != ScalarType::None && !shape->allowsType(i.type(0))) {
      error(i.loc(), "'" + std::string(name) + "' does not take type '" + std::string(typeName(i.type(0))) + "'" +
                         withCondition(*shape, i) + " (it takes " + describeTypeClasses(*shape) + " types)");
      return;
    }
    // Modifiers the table does not know: qualifiers with '::' (.L1::evict_last, .L2::256B)
    // are kept verbatim; anything else on a modelled instruction is a misspelling that ptxas
    // rejects too (.globl, .shard).
    for (Mod m : i.mods())
      if (!isKnownMod(m) && modName(m, m_.strings()).find("::") == std::string_view::npos)
        error(i.loc(), "unknown modifier '" + std::string(modName(m, m_.strings())) + "' on '" + std::string(name) + "'");
    for (uint32_t k = 0; k < i.numOperands(); ++k) checkOperandShape(i, *shape, k);
  }

  // " with '.lo'": the modifier that chose a conditional shape, for messages.
  std::string withCondition(const OperandShape& shape, const Instruction& i) const {
    for (Mod m : shape.when)
      if (i.has(m)) return " with '" + std::string(modName(m, m_.strings())) + "'";
    return "";
  }

  void checkOperandShape(const Instruction& i, const OperandShape& shape, uint32_t k) {
    const OperandSpec& spec = shape.ops[k];
    const Operand& o = i.operand(k);
    OperandName what{k, spec.name, i.info().name};
    switch (spec.role) {
      case OperandRole::Label:
        if (!o.isLabel()) error(i.loc(), what + " must be a label");
        return;
      case OperandRole::Table:
        if (o.kind != OperandKind::Symbol || !tables_.count(o.id))
          error(i.loc(), what + " must name a .branchtargets table");
        return;
      case OperandRole::Address:
        if (o.kind != OperandKind::Address) {
          error(i.loc(), what + " must be an address [...]");
        } else if (spec.spaces && !(spec.spaces & (1u << static_cast<unsigned>(foldSpace(i.space()))))) {
          StateSpace s = foldSpace(i.space());
          error(i.loc(), "'" + std::string(i.info().name) + "'" + withCondition(shape, i) + " cannot access the " +
                             (s == StateSpace::Generic ? std::string("generic") : std::string(spaceName(s)).substr(1)) + " state space");
        } else {
          checkAddressSpace(i, o, what);
        }
        return;
      case OperandRole::Value: break;
    }
    ScalarType want = resolveType(spec.type, i);
    bool byModifier = spec.has(OperandAccept::VecByMod);
    unsigned width = o.kind == OperandKind::Vector || byModifier ? i.vectorWidth() : 1;
    if (o.kind == OperandKind::Vector) {
      auto elems = i.elements(o);
      bool byMod = byModifier && width > 1;
      if (byMod && elems.size() != width) {
        error(i.loc(), what + " must be a vector of " + std::to_string(width) + " elements (.v" + std::to_string(width) + ")");
        return;
      }
      // `{ %r1 }` without .v1 (Triton writes it) is one element, as ptxas reads it.
      bool single = byModifier && width == 1 && elems.size() == 1;
      if (!byMod && !single && !(spec.has(OperandAccept::Pack) && elems.size() >= 2)) {
        error(i.loc(), what + " must not be a vector");
        return;
      }
      // Packed elements (mov.b64 %rd, {%r1, %r2}) share the bits of the type.
      ScalarType elem = want;
      if (!byMod && !single && want != ScalarType::None) {
        unsigned bits = typeBits(want) / static_cast<unsigned>(elems.size());
        elem = bits == 8 ? ScalarType::B8 : bits == 16 ? ScalarType::B16 : bits == 32 ? ScalarType::B32 : bits == 64 ? ScalarType::B64 : ScalarType::None;
      }
      for (const Operand& e : elems) checkValue(i, spec, e, elem, spec.def, spec.def, what);
      return;
    }
    if (byModifier && width > 1) {
      error(i.loc(), what + " must be a vector of " + std::to_string(width) + " elements (.v" + std::to_string(width) + ")");
      return;
    }
    if (o.kind == OperandKind::Pair) {
      auto elems = i.elements(o);
      if (!spec.has(OperandAccept::Pair) || elems.size() != 2) {
        error(i.loc(), what + " must not be a pair");
        return;
      }
      checkValue(i, spec, elems[0], want, true, spec.has(OperandAccept::Sink), what);
      checkValue(i, spec, elems[1], resolveType(spec.type2, i), true, spec.has(OperandAccept::Sink2), what);
      return;
    }
    checkValue(i, spec, o, want, spec.def, spec.has(OperandAccept::Sink), what);
  }

  // One register, immediate, special register or symbol written or read where `spec` is.
  void checkValue(const Instruction& i, const OperandSpec& spec, const Operand& o, ScalarType want, bool def, bool sinkOk,
                  const OperandName& what) {
    bool addrInt = spec.type == TypeRule::Addr;
    switch (o.kind) {
      case OperandKind::Reg: {
        if (spec.has(OperandAccept::ImmOnly)) {
          error(i.loc(), what + " must be an immediate");
          return;
        }
        ScalarType have = regType(o);
        if (o.negated() && !def && want != ScalarType::Pred && !(have == ScalarType::Pred && want == ScalarType::None))
          error(i.loc(), what + ": '!' negates only predicates");
        if (have == ScalarType::None) return;
        bool ok = addrInt ? typeClass(have) != TypeClass::Pred && typeClass(have) != TypeClass::Float &&
                                (typeBits(have) == 32 || typeBits(have) == 64)
                          : regFits(have, want, spec.wider);
        if (!ok)
          error(i.loc(), "register '" + f_.regName(o.id) + "' of type " + std::string(typeName(have)) + " does not fit " + what +
                             (addrInt ? ", a 32- or 64-bit address" : ", of type " + std::string(typeName(want))));
        return;
      }
      case OperandKind::Sink:
        if (!def || !sinkOk) error(i.loc(), what + ": '_' is not allowed here");
        return;
      case OperandKind::Imm:
      case OperandKind::FImm:
        if (def) {
          error(i.loc(), what + " is written: it must be a register, not an immediate");
          return;
        }
        if (!addrInt && !immediateFits(o, want))
          error(i.loc(), what + ": " + (o.kind == OperandKind::FImm ? "a float literal" : "an integer literal") +
                             " does not fit type " + std::string(typeName(want)));
        return;
      case OperandKind::Special:
        if (def || !spec.has(OperandAccept::Special))
          error(i.loc(), what + ": a special register is not allowed here (move it to a register with mov first)");
        return;
      case OperandKind::Symbol:
        if (def || !spec.has(OperandAccept::Symbol)) error(i.loc(), what + " must be a register or an immediate, not a name");
        return;
      default:
        error(i.loc(), what + (def ? " must be a register" : " must be a register or an immediate"));
        return;
    }
  }

  // An address that names a variable names one of the instruction's state space; a generic
  // address may name any variable but a parameter.
  void checkAddressSpace(const Instruction& i, const Operand& a, const OperandName& what) {
    if (a.addressBase() != AddressBase::Symbol) return;
    uint32_t have = 0;
    using SpaceMap = std::unordered_map<uint32_t, uint32_t>;
    const SpaceMap* maps[] = {&spaces_, &symbols_.spaces};
    for (const SpaceMap* map : maps)
      if (auto it = map->find(a.id); it != map->end()) have |= it->second;
    if (!have) return;  // unknown symbols are reported by checkOperands; functions have no space
    StateSpace want = foldSpace(i.space());
    bool ok = want == StateSpace::Generic ? (have & ~(1u << static_cast<unsigned>(StateSpace::Param))) != 0
                                          : (have & (1u << static_cast<unsigned>(want))) != 0;
    if (!ok)
      error(i.loc(), what + ": '" + std::string(m_.str(a.id)) + "' is not in the " +
                         (want == StateSpace::Generic ? std::string("generic") : std::string(spaceName(want)).substr(1)) +
                         " state space");
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
  // The state spaces each of the function's variable names is declared in (a bit per
  // StateSpace); the module's are in symbols_.
  std::unordered_map<uint32_t, uint32_t> spaces_;
  bool known(uint32_t name) const { return known_.count(name) || symbols_.names.count(name); }
  std::vector<std::vector<RegId>> sameName_;
  BranchTargetTables tables_;
};

}  // namespace

ModuleSymbols::ModuleSymbols(const Module& m) {
  for (const Variable& v : m.globals()) {
    names.insert(v.name);
    spaces[v.name] |= 1u << static_cast<unsigned>(foldSpace(v.space));
  }
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
