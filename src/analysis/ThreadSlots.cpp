#include "ptxopt/analysis/ThreadSlots.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <unordered_set>

#include "ptxopt/analysis/MemorySpace.h"
#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt {

namespace {

uint64_t maskOf(unsigned bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

// A value as  sum(fixed[a] * a) + coeff * thread + k  modulo 2^bits (see the header). bits 0:
// an immediate, which takes the width of whatever it meets.
struct Form {
  unsigned bits = 0;
  std::map<std::string, uint64_t> fixed;
  uint64_t k = 0;
  std::string thread;  // empty: the same in every thread of the CTA
  int64_t coeff = 0;
  uint64_t spacing = 0, reach = 0;

  bool isConstant() const { return fixed.empty() && thread.empty(); }
  bool isFixed() const { return thread.empty(); }
  // Everything but k, in one canonical spelling.
  std::string shape() const {
    std::string s = "w" + std::to_string(bits);
    for (const auto& [atom, c] : fixed) s += " + " + std::to_string(c) + "*" + atom;
    if (!thread.empty()) s += " + " + std::to_string(coeff) + "*" + thread;
    return s;
  }
  std::string text() const { return shape() + " + " + std::to_string(k); }
};

using MaybeForm = std::optional<Form>;

Form constant(uint64_t v) {
  Form f;
  f.k = v;
  return f;
}

Form atom(std::string name, unsigned bits) {
  Form f;
  f.bits = bits;
  f.fixed[std::move(name)] = 1;
  return f;
}

// Gives an immediate the width `bits`; false when `f` has another width.
bool widen(Form& f, unsigned bits) {
  if (f.bits == 0) {
    f.bits = bits;
    f.k &= maskOf(bits);
    return true;
  }
  return f.bits == bits;
}

MaybeForm scale(Form f, uint64_t m, unsigned bits) {
  if (!widen(f, bits)) return std::nullopt;
  uint64_t mask = maskOf(bits);
  for (auto it = f.fixed.begin(); it != f.fixed.end();) {
    it->second = (it->second * m) & mask;
    it = it->second == 0 ? f.fixed.erase(it) : std::next(it);
  }
  f.k = (f.k * m) & mask;
  if (!f.thread.empty()) {
    // The coefficient as a signed number of the width; keep it small enough to stay exact.
    int64_t sm = static_cast<int64_t>(bits >= 64 ? m : (m & mask) >= (uint64_t(1) << (bits - 1)) ? (m & mask) - (mask + 1) : (m & mask));
    __int128 c = static_cast<__int128>(f.coeff) * sm;
    if (c > (int64_t(1) << 40) || c < -(int64_t(1) << 40)) return std::nullopt;
    f.coeff = static_cast<int64_t>(c);
    if (f.coeff == 0) f.thread.clear();
  }
  return f;
}

MaybeForm add(Form a, Form b, unsigned bits) {
  if (!widen(a, bits) || !widen(b, bits)) return std::nullopt;
  uint64_t mask = maskOf(bits);
  for (const auto& [name, c] : b.fixed) {
    uint64_t& x = a.fixed[name];
    x = (x + c) & mask;
    if (x == 0) a.fixed.erase(name);
  }
  a.k = (a.k + b.k) & mask;
  if (!b.thread.empty()) {
    if (a.thread.empty()) {
      a.thread = b.thread, a.coeff = b.coeff, a.spacing = b.spacing, a.reach = b.reach;
    } else if (a.thread == b.thread) {
      a.coeff += b.coeff;
      if (a.coeff == 0) a.thread.clear();
    } else {
      return std::nullopt;  // two thread atoms: not one stride
    }
  }
  return a;
}

// Does coeff * (a difference of two threads' atoms) stay below 2^(bits-1)?
bool exact(const Form& f) {
  if (f.thread.empty()) return true;
  __int128 span = static_cast<__int128>(std::llabs(f.coeff)) * f.reach;
  return span < (static_cast<__int128>(1) << (f.bits - 1));
}

// The extension of `f` (of width `from`) to `to` bits.
MaybeForm extend(Form f, unsigned from, unsigned to, bool isSigned) {
  if (!widen(f, from)) return std::nullopt;
  if (f.isConstant()) {
    uint64_t v = f.k;
    if (isSigned && from < 64 && (v >> (from - 1)) & 1) v |= ~maskOf(from);
    Form c = constant(v & maskOf(to));
    c.bits = to;
    return c;
  }
  std::string name = std::string(isSigned ? "sext" : "zext") + std::to_string(from) + "(" + f.text() + ")";
  if (f.isFixed()) return atom(name, to);
  if (!exact(f)) return std::nullopt;
  // Two threads' values differ by a multiple of the stride modulo 2^from; as integers of the
  // wider type, by at least the stride and at most 2^from minus it.
  Form t;
  t.bits = to;
  t.thread = name;
  t.coeff = 1;
  t.spacing = static_cast<uint64_t>(std::llabs(f.coeff)) * f.spacing;
  t.reach = (uint64_t(1) << from) - t.spacing;
  return t;
}

bool isIntegerType(ScalarType t) {
  TypeClass c = typeClass(t);
  return c == TypeClass::Signed || c == TypeClass::Unsigned || c == TypeClass::Bit;
}

class Evaluator {
 public:
  Evaluator(const Function& f, const ReachingDefs& rd, const LaunchBounds& bounds)
      : m_(*f.parent()), rd_(rd), bounds_(bounds) {
    // A name declared twice (a nested .param or variable shadowing a kernel parameter or a
    // module variable) does not name one thing: no atom for it.
    std::unordered_map<uint32_t, unsigned> declared;
    for (const Variable& v : m_.globals()) ++declared[v.name];
    for (const Variable& p : f.params) ++declared[p.name];
    for (const Variable& p : f.returnParams) ++declared[p.name];
    for (const Decl& d : f.decls())
      if (d.kind == Decl::Kind::Var) ++declared[d.var.name];
    for (const auto& [name, n] : declared)
      if (n > 1) ambiguous_.insert(name);
    if (f.isEntry)
      for (const Variable& p : f.params)
        if (!ambiguous_.count(p.name)) kernelParams_.insert(p.name);
  }

  MaybeForm operand(const Instruction& at, const Operand& o) {
    switch (o.kind) {
      case OperandKind::Reg:
        if (o.component() != Component::None || o.negated()) return std::nullopt;
        return reg(at, static_cast<RegId>(o.id));
      case OperandKind::Imm:
        if (o.flags & OperandFlag::Predefined) return std::nullopt;
        return constant(static_cast<uint64_t>(o.value));
      case OperandKind::Symbol: {
        if (ambiguous_.count(o.id)) return std::nullopt;
        Form s = atom(std::string(m_.str(o.id)), 0);
        if (o.flags & OperandFlag::HasOffset) s.k = static_cast<uint64_t>(o.value);
        return s;
      }
      case OperandKind::Special: return special(o);
      default: return std::nullopt;
    }
  }

  // The address `inst` accesses, without its width check.
  MaybeForm address(const Instruction& inst) {
    const Operand* a = memoryAddressOperand(inst);
    if (!a || a->kind != OperandKind::Address || a->addressBase() != AddressBase::Reg) return std::nullopt;
    MaybeForm base = reg(inst, static_cast<RegId>(a->id));
    if (!base || base->bits == 0) return std::nullopt;
    return add(*base, constant(static_cast<uint64_t>(a->value)), base->bits);
  }

 private:
  MaybeForm special(const Operand& o) {
    auto sr = static_cast<SpecialReg>(o.id);
    Component c = o.component();
    int dim = c == Component::X ? 0 : c == Component::Y ? 1 : c == Component::Z ? 2 : -1;
    if (sr == SpecialReg::Tid) {
      if (!bounds_.reqntid || dim < 0) return std::nullopt;
      uint64_t x = (*bounds_.reqntid)[0];
      if (dim > 0) return (*bounds_.reqntid)[dim] == 1 ? MaybeForm(constant(0)) : std::nullopt;
      Form t;
      t.thread = "%tid.x";
      t.coeff = 1;
      t.spacing = 1;
      t.reach = x > 0 ? x - 1 : 0;
      return t;
    }
    if (sr == SpecialReg::Ntid && bounds_.reqntid && dim >= 0) return constant((*bounds_.reqntid)[dim]);
    const SpecialRegInfo& info = specialRegInfo(sr);
    if (!info.fixed) return std::nullopt;
    std::string name(info.name);
    if (dim >= 0) name += std::string(".") + "xyz"[dim];
    return atom(name, 0);
  }

  MaybeForm reg(const Instruction& at, RegId r) {
    auto defs = rd_.reaching(&at, r);
    if (defs.size() != 1 || rd_.entryValueReaches(&at, r)) return std::nullopt;
    uint32_t d = defs[0];
    if (auto it = memo_.find(d); it != memo_.end()) return it->second;
    if (!inProgress_.insert(d).second || inProgress_.size() > 48) return std::nullopt;
    MaybeForm v = definition(rd_.defs()[d]);
    inProgress_.erase(d);
    memo_[d] = v;
    return v;
  }

  // An instruction none of whose inputs depends on the thread computes a fixed value: an atom
  // named after the computation.
  MaybeForm fixedResult(const Instruction& i, unsigned bits) {
    const OpcodeInfo& info = i.info();
    if (bits == 0 || info.isOpaque() || info.hasSideEffects() || info.readsMemory() || info.writesMemory() ||
        info.is(OpFlag::VaryingResult | OpFlag::ReadsCarry | OpFlag::Call | OpFlag::WarpCollective | OpFlag::Convergent))
      return std::nullopt;
    std::string name(info.name);
    for (Mod m : i.mods()) name += std::string(modName(m, m_.strings()));
    name += "(";
    for (uint32_t k = i.numDefOperands(); k < i.numOperands(); ++k) {
      MaybeForm v = operand(i, i.operand(k));
      if (!v || !v->isFixed()) return std::nullopt;
      name += (k > i.numDefOperands() ? ", " : "") + v->text();
    }
    return atom(name + ")", bits);
  }

  MaybeForm definition(const DefSite& def) {
    const Instruction& i = *def.inst;
    if (!def.kills || i.hasGuard() || i.numDefOperands() != 1 || !i.operand(0).isReg()) return std::nullopt;
    auto op = [&](uint32_t k) -> MaybeForm { return k < i.numOperands() ? operand(i, i.operand(k)) : std::nullopt; };
    ScalarType t = i.type(0);
    unsigned bits = typeBits(t);
    bool integer = t != ScalarType::None && isIntegerType(t);
    bool plain = integer && !i.has(Mod::Sat);
    switch (i.opcode()) {
      case Opcode::Mov: {
        if (i.numOperands() != 2 || i.operand(1).isComposite() || bits == 0) return std::nullopt;
        MaybeForm v = op(1);
        if (!v || !widen(*v, bits)) return std::nullopt;
        return v;
      }
      case Opcode::Add:
      case Opcode::Sub: {
        if (!plain || i.numOperands() != 3) break;
        MaybeForm a = op(1), b = op(2);
        if (!a || !b) return std::nullopt;
        if (i.opcode() == Opcode::Sub) b = scale(*b, ~uint64_t(0), bits);
        return b ? add(*a, *b, bits) : std::nullopt;
      }
      case Opcode::Shl: {
        if (!integer || i.numOperands() != 3 || !i.operand(2).isImm() || i.operand(2).value < 0 ||
            static_cast<uint64_t>(i.operand(2).value) >= bits)
          break;
        MaybeForm a = op(1);
        return a ? scale(*a, uint64_t(1) << i.operand(2).value, bits) : std::nullopt;
      }
      case Opcode::Mul:
      case Opcode::Mad: {
        if (!plain || i.cmp() == CmpOp::Hi) break;
        bool mad = i.opcode() == Opcode::Mad;
        if (i.numOperands() != (mad ? 4u : 3u)) break;
        MaybeForm a = op(1), b = op(2);
        if (!a || !b) return std::nullopt;
        unsigned w = bits;
        if (i.has(Mod::Wide)) {
          w = bits * 2;
          bool s = typeClass(t) == TypeClass::Signed;
          a = extend(*a, bits, w, s);
          b = extend(*b, bits, w, s);
          if (!a || !b) return std::nullopt;
        }
        if (!widen(*a, w) || !widen(*b, w)) return std::nullopt;
        MaybeForm p;
        if (b->isConstant()) p = scale(*a, b->k, w);
        else if (a->isConstant()) p = scale(*b, a->k, w);
        else if (a->isFixed() && b->isFixed()) p = atom("mul(" + a->text() + ", " + b->text() + ")", w);
        if (!p) return std::nullopt;
        if (!mad) return p;
        MaybeForm c = op(3);
        return c ? add(*p, *c, w) : std::nullopt;
      }
      case Opcode::Cvt: {
        ScalarType from = i.type(1);
        if (!integer || from == ScalarType::None || !isIntegerType(from) || i.mods().size() != 2 ||
            i.numOperands() != 2)
          break;
        MaybeForm a = op(1);
        if (!a) return std::nullopt;
        unsigned fb = typeBits(from);
        if (bits > fb) return extend(*a, fb, bits, typeClass(from) == TypeClass::Signed);
        if (bits == fb) return widen(*a, bits) ? a : std::nullopt;
        if (a->isConstant()) return constant(a->k & maskOf(bits));
        break;  // a truncation: fixed values only
      }
      case Opcode::Cvta: {
        // Between a window of the generic space and the space itself an address moves by a
        // fixed amount.
        StateSpace s = i.space();
        if ((!isSharedSpace(s) && s != StateSpace::Global) || i.numOperands() != 2 || bits == 0) return std::nullopt;
        MaybeForm a = op(1);
        if (!a || !widen(*a, bits)) return std::nullopt;
        std::string shift = std::string("cvta") + (i.has(Mod::To) ? ".to" : "") + std::string(spaceName(s)) + ".u" +
                            std::to_string(bits);
        return add(*a, atom(shift, bits), bits);
      }
      case Opcode::Ld: {
        // A kernel parameter, or .const memory: nothing writes them while the kernel runs.
        if (bits == 0 || i.vectorWidth() != 1 || !integer) return std::nullopt;
        const Operand* a = memoryAddressOperand(i);
        if (!a || a->kind != OperandKind::Address) return std::nullopt;
        StateSpace s = i.space();
        if (isParamSpace(s) && a->addressBase() == AddressBase::Symbol && kernelParams_.count(a->id))
          return atom("param " + std::string(m_.str(a->id)) + "+" + std::to_string(a->value) + std::string(typeName(t)), bits);
        if (s == StateSpace::Const) {
          MaybeForm addr = a->addressBase() == AddressBase::Reg ? reg(i, static_cast<RegId>(a->id))
                           : a->addressBase() == AddressBase::Symbol && !ambiguous_.count(a->id)
                               ? MaybeForm(atom(std::string(m_.str(a->id)), 0))
                               : std::nullopt;
          if (!addr || !addr->isFixed()) return std::nullopt;
          return atom("ld.const" + std::string(typeName(t)) + "[" + addr->text() + "+" + std::to_string(a->value) + "]", bits);
        }
        return std::nullopt;
      }
      default: break;
    }
    return fixedResult(i, bits);
  }

  const Module& m_;
  const ReachingDefs& rd_;
  LaunchBounds bounds_;
  std::unordered_set<uint32_t> kernelParams_, ambiguous_;
  std::unordered_map<uint32_t, MaybeForm> memo_;
  std::unordered_set<uint32_t> inProgress_;
};

// Bytes one access touches: the type's width times the vector width; 0 when unknown.
uint64_t accessBytes(const Instruction& i) { return uint64_t(typeBits(i.type(0))) / 8 * i.vectorWidth(); }

}  // namespace

ThreadSlots ThreadSlotsAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  ThreadSlots out;
  LaunchBounds bounds = f.launchBounds();
  out.oneDimensional = f.isEntry && bounds.reqntid && (*bounds.reqntid)[1] == 1 && (*bounds.reqntid)[2] == 1;
  if (!out.oneDimensional) return out;
  const MemorySpaceInfo& mem = am.get<MemorySpaceAnalysis>();
  Evaluator ev(f, am.get<ReachingDefsAnalysis>(), bounds);
  std::map<std::string, uint32_t> byKey;
  for (const MemAccess& a : mem.accesses) {
    const Instruction& i = *a.inst;
    Opcode op = i.opcode();
    if (op != Opcode::Ld && op != Opcode::Ldu && op != Opcode::St && op != Opcode::Atom && op != Opcode::Red) continue;
    if (i.info().isOpaque() || (a.space != StateSpace::Shared && a.space != StateSpace::Global)) continue;
    uint64_t bytes = accessBytes(i);
    MaybeForm addr = ev.address(i);
    if (bytes == 0 || !addr || addr->thread.empty() || !exact(*addr)) continue;
    // A shared address may be taken modulo 2^32 whatever its register's width: the stride must
    // not wrap there either.
    if (a.space == StateSpace::Shared && addr->bits > 32) {
      Form narrow = *addr;
      narrow.bits = 32;
      if (!exact(narrow)) continue;
    }
    std::string key = std::string(spaceName(a.space)) + " " + addr->shape();
    // The offset as a signed number of the address's width.
    uint64_t mask = maskOf(addr->bits);
    int64_t k = addr->bits >= 64                                     ? static_cast<int64_t>(addr->k)
                : (addr->k >> (addr->bits - 1)) & 1 ? static_cast<int64_t>(addr->k) - static_cast<int64_t>(mask) - 1
                                                                     : static_cast<int64_t>(addr->k);
    // Offsets far from zero would overflow the window arithmetic; such accesses stay unclassified.
    if (k > (int64_t(1) << 40) || k < -(int64_t(1) << 40)) continue;
    auto [it, fresh] = byKey.emplace(key, static_cast<uint32_t>(out.classes.size()));
    if (fresh) {
      SlotClass c;
      c.space = a.space;
      c.form = key;
      c.stride = static_cast<uint64_t>(std::llabs(addr->coeff)) * addr->spacing;
      c.lo = k;
      c.hi = k + static_cast<int64_t>(bytes);
      out.classes.push_back(c);
    }
    SlotClass& c = out.classes[it->second];
    c.lo = std::min(c.lo, k);
    c.hi = std::max(c.hi, k + static_cast<int64_t>(bytes));
    ++c.accesses;
    out.classOf[&i] = it->second;
  }
  for (SlotClass& c : out.classes) c.privateSlots = c.hi - c.lo <= static_cast<int64_t>(c.stride);
  return out;
}

}  // namespace ptxopt
