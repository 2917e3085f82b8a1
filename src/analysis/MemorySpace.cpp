#include "ptxopt/analysis/MemorySpace.h"

#include <unordered_set>

#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt {

const Operand* memoryAddressOperand(const Instruction& inst) {
  // Most instructions hold no address: then there is nothing to look up in the opcode table
  // (the lookup was two thirds of this analysis).
  bool anyAddress = false;
  for (const Operand& o : inst.operands()) anyAddress |= o.kind == OperandKind::Address;
  if (!anyAddress) return nullptr;
  if (!inst.info().isOpaque()) return operandWithRole(inst, OperandRole::Address);
  for (const Operand& o : inst.operands())
    if (o.kind == OperandKind::Address) return &o;
  return nullptr;
}

namespace {

// The lattice of what a register can hold: nothing known yet (a cycle), an address in one
// space, a plain integer, or anything.
struct Trace {
  enum class Kind { Bottom, Space, NotPointer, Unknown } kind = Kind::Bottom;
  StateSpace space = StateSpace::Generic;
  std::string how;
  static Trace unknown(std::string why) { return {Kind::Unknown, StateSpace::Generic, std::move(why)}; }
  static Trace notPointer() { return {Kind::NotPointer, StateSpace::Generic, {}}; }
  static Trace in(StateSpace s, std::string why) { return {Kind::Space, s, std::move(why)}; }
};

Trace join(const Trace& a, const Trace& b) {
  if (a.kind == Trace::Kind::Bottom) return b;
  if (b.kind == Trace::Kind::Bottom) return a;
  if (a.kind == Trace::Kind::Unknown) return a;
  if (b.kind == Trace::Kind::Unknown) return b;
  if (a.kind == Trace::Kind::NotPointer && b.kind == Trace::Kind::NotPointer) return a;
  if (a.kind == Trace::Kind::Space && b.kind == Trace::Kind::Space && a.space == b.space) return a;
  return Trace::unknown("the reaching definitions disagree");
}

// An address plus an offset: the space of the one operand that is an address.
Trace combineAdd(const Trace& a, const Trace& b) {
  if (a.kind == Trace::Kind::Bottom) return b;
  if (b.kind == Trace::Kind::Bottom) return a;
  if (a.kind == Trace::Kind::Unknown) return a;
  if (b.kind == Trace::Kind::Unknown) return b;
  if (a.kind == Trace::Kind::NotPointer) return b;
  if (b.kind == Trace::Kind::NotPointer) return a;
  if (a.space == b.space) return a;
  return Trace::unknown("adds addresses of two spaces");
}

StateSpace commonSpace(StateSpace s) { return isSharedSpace(s) ? StateSpace::Shared : isParamSpace(s) ? StateSpace::Param : s; }

class Tracer {
 public:
  Tracer(const Function& f, FunctionAnalysisManager& am) : f_(f), m_(*f.parent()), am_(am) {
    for (const Variable& v : m_.globals()) symbols_[v.name] = v.space;
    for (const Decl& d : f.decls())
      if (d.kind == Decl::Kind::Var) symbols_[d.var.name] = d.var.space;
    for (const Variable& p : f.params) {
      symbols_[p.name] = StateSpace::Param;
      if (f.isEntry) kernelParams_.insert(p.name);
    }
    for (const Variable& p : f.returnParams) symbols_[p.name] = StateSpace::Param;
  }

  Trace symbolSpace(uint32_t name) const {
    auto it = symbols_.find(name);
    if (it == symbols_.end()) return Trace::unknown("symbol '" + std::string(m_.str(name)) + "' is not a variable");
    return Trace::in(it->second, "variable " + std::string(m_.str(name)));
  }

  Trace operand(const Instruction& at, const Operand& o, unsigned depth) {
    switch (o.kind) {
      case OperandKind::Reg: return reg(at, static_cast<RegId>(o.id), depth);
      case OperandKind::Symbol: return symbolSpace(o.id);
      case OperandKind::Imm:
      case OperandKind::FImm:
      case OperandKind::Special: return Trace::notPointer();
      default: return Trace::unknown("unexpected operand");
    }
  }

  Trace reg(const Instruction& at, RegId r, unsigned depth) {
    if (depth > 24) return Trace::unknown("definition chain too long");
    auto defs = rd().reaching(&at, r);
    if (defs.empty()) return Trace::unknown("'" + f_.regName(r) + "' has no definition here");
    Trace t;
    for (uint32_t d : defs) {
      if (!onPath_.insert(d).second) continue;  // a cycle adds nothing new
      t = join(t, definition(rd().defs()[d], depth + 1));
      onPath_.erase(d);
      if (t.kind == Trace::Kind::Unknown) break;
    }
    return t;
  }

  Trace definition(const DefSite& def, unsigned depth) {
    const Instruction& i = *def.inst;
    auto op = [&](uint32_t k) { return k < i.numOperands() ? operand(i, i.operand(k), depth) : Trace::unknown("missing operand"); };
    std::string name(i.info().name);
    switch (i.opcode()) {
      case Opcode::Cvta: {
        StateSpace s = i.space();
        if (s == StateSpace::Generic) return Trace::unknown("cvta without a space");
        const Operand& src = i.operand(1);
        std::string of = src.kind == OperandKind::Symbol ? std::string(m_.str(src.id)) : f_.regName(static_cast<RegId>(src.id));
        return Trace::in(commonSpace(s), std::string(i.has(Mod::To) ? "cvta.to" : "cvta") + std::string(spaceName(s)) + " of " + of);
      }
      case Opcode::Mov:
        if (i.numOperands() == 2 && !i.operand(1).isComposite()) return op(1);
        return Trace::unknown("mov of a vector");
      case Opcode::Add: return combineAdd(op(1), op(2));
      case Opcode::Sub: return op(1);
      case Opcode::Mad: return i.numOperands() == 4 ? combineAdd(Trace::notPointer(), op(3)) : Trace::unknown("mad");
      case Opcode::Selp: return join(op(1), op(2));
      case Opcode::Ld:
      case Opcode::Ldu: {
        const Operand* a = memoryAddressOperand(i);
        if (isParamSpace(i.space()) && a && a->addressBase() == AddressBase::Symbol && kernelParams_.count(a->id))
          return Trace::in(StateSpace::Global, "kernel parameter " + std::string(m_.str(a->id)));
        return Trace::unknown("address loaded from memory by " + name);
      }
      default:
        if (i.info().is(OpFlag::NotAddress)) return Trace::notPointer();
        return Trace::unknown("defined by " + name);
    }
  }

 private:
  // Asked for only when an address in a register is traced: a function whose accesses all
  // name their space (most do) does not need them.
  const ReachingDefs& rd() {
    if (!rd_) rd_ = &am_.get<ReachingDefsAnalysis>();
    return *rd_;
  }

  const Function& f_;
  const Module& m_;
  FunctionAnalysisManager& am_;
  const ReachingDefs* rd_ = nullptr;
  std::unordered_map<uint32_t, StateSpace> symbols_;
  std::unordered_set<uint32_t> kernelParams_;
  std::unordered_set<uint32_t> onPath_;
};

}  // namespace

MemorySpaceInfo MemorySpaceAnalysis::run(const Function& f, FunctionAnalysisManager& am) {
  Tracer tracer(f, am);
  MemorySpaceInfo info;
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts()) {
      const Operand* addr = memoryAddressOperand(*i);
      if (!addr) continue;
      MemAccess a;
      a.inst = i;
      const OpcodeInfo& oi = i->info();
      a.reads = oi.readsMemory();  // prefetch neither reads nor writes: only its address counts
      a.writes = oi.writesMemory();
      a.atomic = oi.is(OpFlag::Atomic);
      StateSpace s = i->space();
      if (s != StateSpace::Generic) {
        a.explicitSpace = true;
        a.space = commonSpace(s);
        a.how = "explicit";
      } else {
        Trace t;
        if (addr->addressBase() == AddressBase::Symbol)
          t = tracer.symbolSpace(addr->id);
        else if (addr->addressBase() == AddressBase::Reg)
          t = tracer.reg(*i, static_cast<RegId>(addr->id), 0);
        else
          t = Trace::unknown("absolute address");
        if (t.kind == Trace::Kind::Space) {
          a.space = t.space;
          a.how = "traced: " + t.how;
        } else {
          a.space = StateSpace::Generic;
          a.how = t.kind == Trace::Kind::NotPointer ? "address computed from integers" : t.how;
        }
      }
      info.index.emplace(i, static_cast<uint32_t>(info.accesses.size()));
      info.accesses.push_back(std::move(a));
    }
  return info;
}

}  // namespace ptxopt
