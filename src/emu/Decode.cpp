// Turns the IR of a module into the emulator's flat, pre-resolved form.
#include <algorithm>
#include <cstring>
#include <map>

#include "FastPath.h"
#include "Program.h"
#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

uint64_t naturalAlign(const Variable& v) {
  if (v.align) return v.align;
  uint64_t e = std::max<uint64_t>(1, typeBits(v.type) / 8);
  if (v.vec) e *= v.vec;
  return e;
}

class Decoder {
 public:
  Decoder(const Module& m, Program& p) : m_(m), p_(p) {}

  bool run(std::string& error) {
    p_.module = &m_;
    p_.fileName = m_.fileName;
    layoutModuleVariables();
    for (const auto& f : m_.functions())
      if (f->hasBody) {
        p_.functionIndex[std::string(f->name())] = static_cast<uint32_t>(p_.functions.size());
        p_.functions.emplace_back();
        p_.functions.back().ir = f.get();
        p_.functions.back().name = std::string(f->name());
      }
    // Shared declarations inside functions are CTA-wide, like module-level ones.
    for (DFunction& df : p_.functions)
      for (const Decl& d : df.ir->decls())
        if (d.kind == Decl::Kind::Var && isSharedSpace(d.var.space) && !(d.var.linkage & Linkage::Extern)) {
          if (d.var.dims.size() == 1 && d.var.dims[0] < 0) continue;
          p_.staticSharedBytes = alignUp(p_.staticSharedBytes, naturalAlign(d.var));
          functionShared_[&d.var] = p_.staticSharedBytes;
          p_.staticSharedBytes += d.var.sizeInBytes();
        }
    p_.dynamicSharedOffset = alignUp(p_.staticSharedBytes, 16);
    for (DFunction& df : p_.functions)
      if (!decodeFunction(df, error)) return false;
    return true;
  }

 private:
  void layoutModuleVariables() {
    for (const Variable& v : m_.globals()) {
      std::string name(m_.str(v.name));
      if (v.space == StateSpace::Global) {
        DGlobal g;
        g.var = &v;
        g.name = name;
        g.size = std::max<uint64_t>(v.sizeInBytes(), 1);
        g.align = naturalAlign(v);
        moduleSyms_[name] = SymRef{SymRef::Kind::GlobalVar, static_cast<uint32_t>(p_.globals.size()), 0};
        p_.globals.push_back(g);
      } else if (v.space == StateSpace::Const) {
        uint64_t off = alignUp(p_.constImage.size(), naturalAlign(v));
        p_.constImage.resize(off + v.sizeInBytes(), 0);
        writeInitializer(v, p_.constImage.data() + off, v.sizeInBytes());
        moduleSyms_[name] = SymRef{SymRef::Kind::ConstVar, 0, off};
      } else if (isSharedSpace(v.space)) {
        if ((v.linkage & Linkage::Extern) || (v.dims.size() == 1 && v.dims[0] < 0)) {
          moduleSyms_[name] = SymRef{SymRef::Kind::SharedVar, 1, 0};  // index 1: dynamic
        } else {
          p_.staticSharedBytes = alignUp(p_.staticSharedBytes, naturalAlign(v));
          moduleSyms_[name] = SymRef{SymRef::Kind::SharedVar, 0, p_.staticSharedBytes};
          p_.staticSharedBytes += v.sizeInBytes();
        }
      }
    }
  }

 public:
  // Writes the numeric part of an initializer (symbols are resolved per run for globals;
  // .const data holding addresses is not supported and stays zero).
  static void writeInitializer(const Variable& v, uint8_t* out, uint64_t size) {
    if (!v.hasInit) return;
    uint64_t elem = std::max<uint64_t>(1, typeBits(v.type) / 8);
    uint64_t pos = 0;
    for (const InitItem& it : v.init) {
      if (it.kind == InitItem::Kind::Open || it.kind == InitItem::Kind::Close) continue;
      if (pos + elem > size) break;
      uint64_t bits = 0;
      if (it.kind == InitItem::Kind::Int || it.kind == InitItem::Kind::Float)
        bits = literalBits(it.kind == InitItem::Kind::Float, static_cast<uint64_t>(it.value), static_cast<FloatForm>(it.flags), v.type);
      std::memcpy(out + pos, &bits, elem);
      pos += elem;
    }
  }

 private:
  uint32_t constSlot(DFunction& f, uint64_t value) {
    auto [it, inserted] = constSlots_.emplace(value, 0);
    if (inserted) {
      it->second = f.numRegs + static_cast<uint32_t>(f.constValues.size());
      f.constValues.push_back(value);
    }
    return it->second;
  }

  uint32_t specialSlot(DFunction& f, const Operand& o) {
    for (size_t k = 0; k < f.specials.size(); ++k) {
      const auto& s = f.specials[k];
      if (s.reg == static_cast<SpecialReg>(o.id) && s.comp == o.component() && s.number == static_cast<uint32_t>(o.value))
        return kSpecialBase + static_cast<uint32_t>(k);
    }
    // Specials get slots after the constants: assigned when the function is complete.
    f.specials.push_back({static_cast<SpecialReg>(o.id), o.component(), static_cast<uint32_t>(o.value), 0});
    return kSpecialBase + static_cast<uint32_t>(f.specials.size() - 1);
  }

  // The 64-bit pattern a literal stands for where a value of type `t` is read: an integer
  // literal (converted when `t` is a float type) or a float literal (0f/0d bits or decimal;
  // kept bit for bit where its width is the type's). Operands and initializers both use it.
  static uint64_t literalBits(bool isFloat, uint64_t raw, FloatForm form, ScalarType t) {
    if (!isFloat) {
      if (typeClass(t) == TypeClass::Float) {
        double d = static_cast<double>(static_cast<int64_t>(raw));
        if (t == ScalarType::F32) return floatBits(static_cast<float>(d));
        if (t == ScalarType::F64) return doubleBits(d);
        if (t == ScalarType::F16) return doubleToHalf(d);
        if (t == ScalarType::BF16) return doubleToBFloat16(d);
      }
      return raw;
    }
    if (form == FloatForm::F32Hex && (t == ScalarType::F32 || typeBits(t) == 32)) return raw & 0xFFFFFFFFu;
    if (form == FloatForm::F64Hex && (t == ScalarType::F64 || typeBits(t) == 64)) return raw;
    double d = form == FloatForm::F32Hex ? bitsFloat(static_cast<uint32_t>(raw)) : bitsDouble(raw);
    switch (t) {
      case ScalarType::F32: return floatBits(static_cast<float>(d));
      case ScalarType::F16: return doubleToHalf(d);
      case ScalarType::BF16: return doubleToBFloat16(d);
      default: return doubleBits(d);
    }
  }
  static uint64_t immediateBits(const Operand& o, ScalarType t) {
    return literalBits(o.kind == OperandKind::FImm, static_cast<uint64_t>(o.value), static_cast<FloatForm>(o.aux), t);
  }

  // The slot an operand reads, for an operand of type `t`.
  bool srcSlot(DFunction& f, const Operand& o, ScalarType t, uint32_t& slot) {
    switch (o.kind) {
      case OperandKind::Reg:
        if (o.component() != Component::None) return fail("vector register components are not supported");
        slot = o.id;
        return true;
      case OperandKind::Imm:
      case OperandKind::FImm: slot = constSlot(f, immediateBits(o, t)); return true;
      case OperandKind::Special: slot = specialSlot(f, o); return true;
      case OperandKind::Sink: slot = kSinkSlot; return true;
      default: break;
    }
    return fail("unsupported operand");
  }

  bool dstSlot(const Operand& o, uint32_t& slot) {
    if (o.kind == OperandKind::Sink) {
      slot = kSinkSlot;
      return true;
    }
    if (o.kind != OperandKind::Reg || o.component() != Component::None) return fail("unsupported destination");
    slot = o.id;
    return true;
  }

  // Decoding problems become Unsupported instructions that fault when executed.
  bool fail(const std::string& why) {
    unsupportedWhy_ = why;
    return false;
  }

  // Symbols visible from an instruction: nested .param/.local/.shared declarations by scope,
  // then the function's own declarations and parameters, then the module's variables.
  SymRef resolveSymbol(uint32_t nameId) {
    auto it = scoped_.find(nameId);
    if (it != scoped_.end() && !it->second.empty()) return it->second.back();
    auto fit = functionSyms_.find(nameId);
    if (fit != functionSyms_.end()) return fit->second;
    std::string name(m_.str(nameId));
    auto mit = moduleSyms_.find(name);
    if (mit != moduleSyms_.end()) return mit->second;
    auto fn = p_.functionIndex.find(name);
    if (fn != p_.functionIndex.end()) return SymRef{SymRef::Kind::Function, fn->second, 0};
    return SymRef{};
  }

  void bindDecl(DFunction& f, const Decl& d, bool nested) {
    if (d.kind != Decl::Kind::Var) return;
    const Variable& v = d.var;
    SymRef ref;
    if (v.space == StateSpace::Local) {
      f.localBytes = alignUp(f.localBytes, std::max<uint64_t>(naturalAlign(v), 8));
      ref = SymRef{SymRef::Kind::LocalVar, 0, f.localBytes};
      f.localBytes += v.sizeInBytes();
    } else if (isParamSpace(v.space)) {
      f.paramBytes = alignUp(f.paramBytes, std::max<uint64_t>(naturalAlign(v), 8));
      ref = SymRef{SymRef::Kind::FrameParam, 0, f.paramBytes};
      f.paramBytes += std::max<uint64_t>(v.sizeInBytes(), 1);
    } else if (isSharedSpace(v.space)) {
      auto it = functionShared_.find(&v);
      ref = it != functionShared_.end() ? SymRef{SymRef::Kind::SharedVar, 0, it->second} : SymRef{SymRef::Kind::SharedVar, 1, 0};
    } else {
      return;  // function-scope .global variables are not supported
    }
    if (nested)
      scoped_[v.name].push_back(ref);
    else
      functionSyms_[v.name] = ref;
  }

  bool decodeFunction(DFunction& f, std::string& error);
  bool decodeInstruction(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeAddress(const Operand& o, DInst& di);
  bool decodeCall(DFunction& f, const Instruction& inst, DInst& di);

  static constexpr uint32_t kSpecialBase = 0x40000000u;
  static constexpr uint32_t kSinkSlot = 0x7FFFFFF0u;

  const Module& m_;
  Program& p_;
  std::unordered_map<std::string, SymRef> moduleSyms_;
  std::unordered_map<const Variable*, uint64_t> functionShared_;
  // per function
  std::unordered_map<uint32_t, SymRef> functionSyms_;
  std::unordered_map<uint32_t, std::vector<SymRef>> scoped_;
  std::map<uint64_t, uint32_t> constSlots_;
  std::string unsupportedWhy_;
};

bool Decoder::decodeFunction(DFunction& f, std::string& error) {
  const Function& fn = *f.ir;
  functionSyms_.clear();
  scoped_.clear();
  constSlots_.clear();
  f.numRegs = static_cast<uint32_t>(fn.regs().size());

  // Own parameters: the kernel buffer (entries) or the caller's .param variables (functions).
  uint64_t kernelOffset = 0;
  for (uint32_t k = 0; k < fn.params.size(); ++k) {
    const Variable& v = fn.params[k];
    if (v.space == StateSpace::Reg) {
      error = "function '" + f.name + "': .reg parameters are not supported";
      return false;
    }
    if (fn.isEntry) {
      kernelOffset = alignUp(kernelOffset, naturalAlign(v));
      f.paramOffsets.push_back(kernelOffset);
      functionSyms_[v.name] = SymRef{SymRef::Kind::KernelParam, k, kernelOffset};
      kernelOffset += v.sizeInBytes();
    } else {
      f.paramOffsets.push_back(0);
      functionSyms_[v.name] = SymRef{SymRef::Kind::CalleeParam, k, 0};
    }
    f.paramSizes.push_back(v.sizeInBytes());
  }
  for (uint32_t k = 0; k < fn.returnParams.size(); ++k) {
    functionSyms_[fn.returnParams[k].name] = SymRef{SymRef::Kind::CalleeRetval, k, 0};
    f.retSizes.push_back(fn.returnParams[k].sizeInBytes());
  }
  for (const Decl& d : fn.decls())
    if (d.scope == 0) bindDecl(f, d, false);

  // Reconvergence points from the post-dominator tree.
  FunctionAnalysisManager am(fn);
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const PostDominatorTree& pdt = am.get<PostDominatorAnalysis>();

  // Program counters: every instruction in layout order; a block starts at the pc of its first
  // instruction (or of the next instruction if it has none).
  std::vector<uint32_t> blockPc(fn.blockIdBound(), kNoPc);
  uint32_t pc = 0;
  for (const BasicBlock* b : fn.blocks()) {
    blockPc[b->id()] = pc;
    for (const Instruction* i : b->insts())
      if (!i->info().isPseudo()) ++pc;
  }
  const auto tables = collectBranchTargetTables(fn);
  // An instruction the emulator cannot run: a record for --list-unsupported, a fault if executed.
  auto unsupported = [&](DInst& di, const Instruction& inst, const std::string& why) {
    di.op = XOp::Unsupported;
    di.call = static_cast<uint32_t>(p_.unsupported.size());
    p_.unsupported.push_back({di.line, std::string(fn.name()), printInstruction(fn, inst), why});
  };

  std::vector<uint32_t> scopeStack{0};
  std::vector<std::vector<uint32_t>> scopeNames{{}};
  for (const BasicBlock* b : fn.blocks()) {
    int32_t node = cfg.index(b);
    uint32_t rpc = kNoPc;
    if (node >= 0) {
      uint32_t post = pdt.ipdom(static_cast<uint32_t>(node));
      if (post < cfg.size()) rpc = blockPc[cfg.rpo[post]->id()];
    }
    for (const Instruction* inst : b->insts()) {
      if (inst->is(Opcode::ScopeBegin)) {
        scopeStack.push_back(inst->payload());
        scopeNames.emplace_back();
        continue;
      }
      if (inst->is(Opcode::ScopeEnd)) {
        for (uint32_t name : scopeNames.back()) scoped_[name].pop_back();
        scopeNames.pop_back();
        scopeStack.pop_back();
        continue;
      }
      if (inst->is(Opcode::Decl)) {
        const Decl& d = fn.decls()[inst->payload()];
        if (d.kind == Decl::Kind::Var) {
          size_t before = scoped_[d.var.name].size();
          bindDecl(f, d, true);
          if (scoped_[d.var.name].size() > before) scopeNames.back().push_back(d.var.name);
        }
        continue;
      }
      if (inst->info().isPseudo()) continue;
      DInst di;
      di.ir = inst;
      di.line = inst->loc().line;
      di.t = inst->type(0);
      di.t2 = inst->type(1);
      if (inst->hasGuard()) {
        di.guard = static_cast<int32_t>(inst->guard());
        di.guardNeg = inst->guardNegated();
      }
      unsupportedWhy_.clear();
      if (decodeInstruction(f, *inst, di)) {
        di.fast = selectFastPath(di);
      } else {
        DInst bad;
        bad.ir = inst;
        bad.line = di.line;
        bad.guard = di.guard;
        bad.guardNeg = di.guardNeg;
        unsupported(bad, *inst, unsupportedWhy_);
        di = std::move(bad);
      }
      // Branch targets and the reconvergence point of a branch that splits the warp.
      if (di.op == XOp::Bra || di.op == XOp::BrxIdx) {
        auto labels = branchTargetLabels(*inst, tables);
        auto pcOf = [&](uint32_t label) { return blockPc[fn.labelBlock(label)->id()]; };
        if (labels.empty()) {
          unsupported(di, *inst, di.op == XOp::Bra ? "a branch without a target" : "its branch target table is not found");
        } else {
          if (di.op == XOp::Bra) di.target = pcOf(labels.front());
          else for (uint32_t label : labels) di.targets.push_back(pcOf(label));
          di.rpc = rpc;
        }
      }
      f.code.push_back(std::move(di));
    }
  }
  DInst ret;
  ret.op = XOp::Ret;
  ret.line = f.code.empty() ? fn.loc.line : f.code.back().line;
  f.code.push_back(ret);  // control falling off the end returns

  // Slots: registers, then constants, then special registers, then the sink and the carry.
  uint32_t specialBase = f.numRegs + static_cast<uint32_t>(f.constValues.size());
  for (size_t k = 0; k < f.specials.size(); ++k) f.specials[k].slot = specialBase + static_cast<uint32_t>(k);
  uint32_t sinkSlot = specialBase + static_cast<uint32_t>(f.specials.size());
  f.numSlots = sinkSlot + 2;  // sink, carry flag
  auto fix = [&](uint32_t& s) {
    if (s == kSinkSlot) s = sinkSlot;
    else if (s >= kSpecialBase && s < kSinkSlot) s = specialBase + (s - kSpecialBase);
  };
  for (DInst& di : f.code) {
    for (uint32_t& s : di.dst) fix(s);
    for (uint32_t& s : di.src) fix(s);
    fix(di.addrSlot);
  }
  return true;
}

bool Decoder::decodeAddress(const Operand& o, DInst& di) {
  if (o.kind != OperandKind::Address) return fail("expected an address");
  di.addrOffset = o.value;
  switch (o.addressBase()) {
    case AddressBase::Reg:
      di.addrFromReg = true;
      di.addrSlot = o.id;
      return true;
    case AddressBase::Symbol:
      di.addrSym = resolveSymbol(o.id);
      if (di.addrSym.kind == SymRef::Kind::None) return fail("unknown symbol " + std::string(m_.str(o.id)));
      return true;
    case AddressBase::None:
      di.addrFromReg = false;
      di.addrSym = SymRef{};
      return true;
  }
  return false;
}

bool Decoder::decodeCall(DFunction& f, const Instruction& inst, DInst& di) {
  // call{.uni} (ret...), target, (args...){, prototype|targets};
  DCall c;
  uint32_t k = 0;
  std::vector<const Operand*> lists;
  const Operand* target = nullptr;
  for (; k < inst.numOperands(); ++k) {
    const Operand& o = inst.operand(k);
    if (o.kind == OperandKind::List) {
      lists.push_back(&o);
    } else if (!target && (o.kind == OperandKind::Symbol || o.kind == OperandKind::Reg)) {
      target = &o;
    }
  }
  if (!target) return fail("call without a target");
  const Operand* rets = nullptr;
  const Operand* args = nullptr;
  // A list before the target holds results; after it, arguments.
  for (const Operand* l : lists) {
    if (l < target) rets = l;
    else if (!args) args = l;
  }
  auto paramOffset = [&](const Operand& o, uint64_t& off) {
    if (o.kind != OperandKind::Symbol) return false;
    SymRef r = resolveSymbol(o.id);
    if (r.kind != SymRef::Kind::FrameParam) return false;
    off = r.offset;
    return true;
  };
  if (rets)
    for (const Operand& o : inst.elements(*rets)) {
      uint64_t off;
      if (!paramOffset(o, off)) return fail("call results must be .param variables");
      c.retOffsets.push_back(off);
    }
  if (args)
    for (const Operand& o : inst.elements(*args)) {
      uint64_t off;
      if (!paramOffset(o, off)) return fail("call arguments must be .param variables");
      c.argOffsets.push_back(off);
    }
  if (target->kind == OperandKind::Reg) {
    c.indirect = true;
    c.targetSlot = target->id;
  } else {
    const std::string callee(m_.str(target->id));
    auto it = p_.functionIndex.find(callee);
    if (it != p_.functionIndex.end()) {
      c.callee = static_cast<int32_t>(it->second);
    } else if (callee == "vprintf") {
      c.builtinPrintf = true;
    } else if (callee == "__assertfail") {
      c.builtinAssert = true;
    } else {
      return fail("call to '" + callee + "', which has no body in this module");
    }
  }
  di.op = XOp::Call;
  di.call = static_cast<uint32_t>(f.calls.size());
  f.calls.push_back(std::move(c));
  return true;
}

bool Decoder::decodeInstruction(DFunction& f, const Instruction& inst, DInst& di) {
  const uint32_t n = inst.numOperands();
  auto src = [&](uint32_t k, ScalarType t) -> bool {
    if (k >= n) return fail("missing operand");
    const Operand& o = inst.operand(k);
    if (o.negated()) di.negMask |= static_cast<uint8_t>(1u << di.nsrc);
    return srcSlot(f, o, t, di.src[di.nsrc++]);
  };
  auto dst = [&](uint32_t k) -> bool {
    if (k >= n) return fail("missing operand");
    const Operand& o = inst.operand(k);
    if (o.kind == OperandKind::Pair) {
      for (const Operand& e : inst.elements(o))
        if (!dstSlot(e, di.dst[di.ndst++])) return false;
      return true;
    }
    return dstSlot(o, di.dst[di.ndst++]);
  };
  auto vectorOrReg = [&](const Operand& o, bool isDst, ScalarType t) -> bool {
    if (o.kind == OperandKind::Vector) {
      for (const Operand& e : inst.elements(o)) {
        if (isDst) {
          if (!dstSlot(e, di.dst[di.ndst++])) return false;
        } else if (!srcSlot(f, e, t, di.src[di.nsrc++])) {
          return false;
        }
        if (di.ndst > 8 || di.nsrc > 8) return fail("vector too wide");
      }
      return true;
    }
    if (isDst) return dstSlot(o, di.dst[di.ndst++]);
    return srcSlot(f, o, t, di.src[di.nsrc++]);
  };
  ScalarType t = di.t;
  di.ftz = inst.has(Mod::Ftz);
  di.sat = inst.has(Mod::Sat);
  di.approx = inst.has(Mod::Approx);
  if (auto r = inst.rounding()) {
    di.rnd = arithRounding(r);
    di.hasRounding = true;
    di.toIntegral = *r == Rounding::Rni || *r == Rounding::Rzi || *r == Rounding::Rmi || *r == Rounding::Rpi;
  }
  TypeClass cls = t == ScalarType::None ? TypeClass::Bit : typeClass(t);
  bool isHalf = t == ScalarType::F16 || t == ScalarType::F16x2 || t == ScalarType::BF16 || t == ScalarType::BF16x2;

  switch (inst.opcode()) {
    case Opcode::Mov: {
      if (n != 2) return fail("mov takes two operands");
      const Operand& d = inst.operand(0);
      const Operand& a = inst.operand(1);
      if (a.kind == OperandKind::Vector) {
        di.op = XOp::MovPack;
        if (!dst(0)) return false;
        unsigned parts = inst.elements(a).size();
        di.elemBytes = static_cast<uint8_t>(typeBits(t) / 8 / std::max(1u, parts));
        return vectorOrReg(a, false, ScalarType::B64);
      }
      if (d.kind == OperandKind::Vector) {
        di.op = XOp::MovUnpack;
        if (!vectorOrReg(d, true, t)) return false;
        di.elemBytes = static_cast<uint8_t>(typeBits(t) / 8 / std::max<unsigned>(1, di.ndst));
        return src(1, t);
      }
      if (a.kind == OperandKind::Special) {
        SpecialReg sr = static_cast<SpecialReg>(a.id);
        if (sr == SpecialReg::Clock || sr == SpecialReg::ClockHi || sr == SpecialReg::Clock64 ||
            sr == SpecialReg::Globaltimer || sr == SpecialReg::GlobaltimerLo || sr == SpecialReg::GlobaltimerHi) {
          di.op = XOp::ReadClock;
          di.mode = static_cast<uint8_t>(sr);
          return dst(0);
        }
      }
      di.op = XOp::Mov;
      if (!dst(0)) return false;
      if (a.kind == OperandKind::Symbol) {
        di.addrSym = resolveSymbol(a.id);
        if (di.addrSym.kind == SymRef::Kind::None) return fail("unknown symbol " + std::string(m_.str(a.id)));
        di.addrOffset = a.value;
        di.mode = 1;  // the address of a symbol
        return true;
      }
      return src(1, t);
    }
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Mad:
    case Opcode::Fma:
    case Opcode::Div:
    case Opcode::Rem:
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Mul24:
    case Opcode::Mad24:
    case Opcode::Addc:
    case Opcode::Subc:
    case Opcode::Madc: {
      if (!dst(0)) return false;
      bool isFloat = cls == TypeClass::Float;
      di.wide = inst.has(Mod::Wide);
      di.hi = inst.has(Mod::Hi);
      ScalarType st = t;
      for (uint32_t k = 1; k < n; ++k) {
        // mad.wide: the addend is twice as wide
        ScalarType ot = st;
        if (di.wide && k == 3) ot = typeBits(t) == 16 ? ScalarType::B32 : typeBits(t) == 32 ? ScalarType::B64 : t;
        if (!src(k, ot)) return false;
      }
      if (isHalf) {
        di.op = XOp::HalfArith;
      } else if (isFloat) {
        di.op = XOp::FloatArith;
      } else {
        di.op = XOp::IntArith;
        di.setsCarry = inst.has(Mod::Cc);
        di.readsCarry = inst.info().is(OpFlag::ReadsCarry);
      }
      switch (inst.opcode()) {
        case Opcode::Add:
        case Opcode::Addc: di.mode = Arith::Add; break;
        case Opcode::Sub:
        case Opcode::Subc: di.mode = Arith::Sub; break;
        case Opcode::Mul: di.mode = Arith::Mul; break;
        case Opcode::Mad:
        case Opcode::Madc:
        case Opcode::Fma: di.mode = Arith::Mad; break;
        case Opcode::Div: di.mode = Arith::Div; break;
        case Opcode::Rem: di.mode = Arith::Rem; break;
        case Opcode::Abs: di.mode = Arith::Abs; break;
        case Opcode::Neg: di.mode = Arith::Neg; break;
        case Opcode::Min: di.mode = Arith::Min; break;
        case Opcode::Max: di.mode = Arith::Max; break;
        case Opcode::Mul24: di.mode = Arith::Mul24; break;
        case Opcode::Mad24: di.mode = Arith::Mad24; break;
        default: break;
      }
      di.mode2 = inst.has(Mod::NaN) ? 1 : inst.has(Mod::Xorsign) ? 2 : 0;
      if (inst.has(Mod::Relu)) di.mode2 |= 4;
      return true;
    }
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Rcp:
    case Opcode::Ex2:
    case Opcode::Lg2:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Tanh:
    case Opcode::Copysign:
    case Opcode::Testp: {
      if (inst.opcode() == Opcode::Testp) {
        di.op = XOp::FloatArith;
        if (!dst(0) || !src(1, t)) return false;
        // the test: finite, infinite, number, notanumber, normal, subnormal
        const Mod tests[] = {Mod::Finite, Mod::Infinite, Mod::Number, Mod::Notanumber, Mod::Normal, Mod::Subnormal};
        for (uint8_t k = 0; k < 6; ++k)
          if (inst.has(tests[k])) di.mode2 = k;
        di.mode = Arith::Testp;
        return true;
      }
      if (!dst(0)) return false;
      for (uint32_t k = 1; k < n; ++k)
        if (!src(k, t)) return false;
      di.op = isHalf ? XOp::HalfArith : XOp::FloatArith;
      switch (inst.opcode()) {  // the codes the executor knows: 20 sqrt ... 28 copysign
        case Opcode::Sqrt: di.mode = Arith::Sqrt; break;
        case Opcode::Rsqrt: di.mode = Arith::Rsqrt; break;
        case Opcode::Rcp: di.mode = Arith::Rcp; break;
        case Opcode::Ex2: di.mode = Arith::Ex2; break;
        case Opcode::Lg2: di.mode = Arith::Lg2; break;
        case Opcode::Sin: di.mode = Arith::Sin; break;
        case Opcode::Cos: di.mode = Arith::Cos; break;
        case Opcode::Tanh: di.mode = Arith::Tanh; break;
        case Opcode::Copysign: di.mode = Arith::Copysign; break;
        default: break;
      }
      return true;
    }
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Not:
    case Opcode::Cnot:
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Bfind:
    case Opcode::Brev:
    case Opcode::Bfe:
    case Opcode::Bfi:
    case Opcode::Prmt:
    case Opcode::Lop3:
    case Opcode::Shf:
    case Opcode::Shl:
    case Opcode::Shr:
    case Opcode::Bmsk:
    case Opcode::Szext: {
      di.op = XOp::BitOp;
      di.mode = static_cast<uint8_t>(inst.opcode());
      if (!dst(0)) return false;
      for (uint32_t k = 1; k < n; ++k) {
        ScalarType ot = t;
        // shift amounts, bit positions and lengths, selectors and lop3's table are 32-bit
        if ((inst.is(Opcode::Shl) || inst.is(Opcode::Shr)) && k == 2) ot = ScalarType::U32;
        if (inst.is(Opcode::Bfe) && k >= 2) ot = ScalarType::U32;
        if (inst.is(Opcode::Bfi) && k >= 3) ot = ScalarType::U32;
        if (inst.is(Opcode::Prmt) || inst.is(Opcode::Shf) || inst.is(Opcode::Lop3)) ot = ScalarType::B32;
        if (!src(k, ot)) return false;
      }
      if (inst.is(Opcode::Shf)) di.mode2 = (inst.has(Mod::L) ? 1 : 0) | (inst.has(Mod::Clamp) ? 2 : 0);
      if (inst.is(Opcode::Bfind)) di.mode2 = inst.has(Mod::Shiftamt);
      if (inst.is(Opcode::Prmt)) {
        const Mod modes[] = {Mod::F4e, Mod::B4e, Mod::Rc8, Mod::Ecl, Mod::Ecr, Mod::Rc16};
        for (uint8_t k = 0; k < 6; ++k)
          if (inst.has(modes[k])) di.mode2 = static_cast<uint8_t>(k + 1);
      }
      if (inst.is(Opcode::Bmsk)) di.mode2 = inst.has(Mod::Wrap);
      return true;
    }
    case Opcode::Sad:
      di.op = XOp::Sad;
      return dst(0) && src(1, t) && src(2, t) && src(3, t);
    case Opcode::Dp4a:
    case Opcode::Dp2a:
      di.op = XOp::Dp;
      di.mode = inst.is(Opcode::Dp4a) ? 4 : 2;
      di.mode2 = inst.has(Mod::Hi);
      return dst(0) && src(1, ScalarType::B32) && src(2, ScalarType::B32) && src(3, ScalarType::B32);
    case Opcode::Setp:
    case Opcode::Set: {
      di.op = inst.is(Opcode::Setp) ? XOp::Setp : XOp::Set;
      auto c = inst.cmp();
      if (!c) return fail("comparison missing");
      di.mode = static_cast<uint8_t>(*c);
      di.mode2 = inst.has(Mod::And) ? 1 : inst.has(Mod::Or) ? 2 : inst.has(Mod::Xor) ? 3 : 0;
      ScalarType ct = inst.is(Opcode::Setp) ? t : di.t2;  // set.cmp.dtype.stype
      if (inst.is(Opcode::Set)) {
        di.t2 = di.t;   // destination type
        di.t = ct = inst.type(1);
      }
      if (!dst(0)) return false;
      if (!src(1, ct) || !src(2, ct)) return false;
      if (n > 3 && !src(3, ScalarType::Pred)) return false;
      return true;
    }
    case Opcode::Selp:
      di.op = XOp::Selp;
      return dst(0) && src(1, t) && src(2, t) && src(3, ScalarType::Pred);
    case Opcode::Slct:
      di.op = XOp::Slct;
      di.t2 = inst.type(1);
      return dst(0) && src(1, t) && src(2, t) && src(3, di.t2);
    case Opcode::Cvt: {
      di.op = XOp::Cvt;
      if (inst.has(Mod::Relu)) di.mode2 |= 4;
      // cvt.f16x2.f32 d, a, b packs two conversions: a into the upper half, b into the lower.
      if (t == ScalarType::F16x2 || t == ScalarType::BF16x2) return n == 3 && dst(0) && src(1, di.t2) && src(2, di.t2);
      return dst(0) && src(1, di.t2);
    }
    case Opcode::Cvta: {
      di.op = XOp::Cvta;
      di.space = inst.space();
      di.mode = inst.has(Mod::To) ? 1 : 0;
      if (n != 2) return fail("cvta takes two operands");
      if (!dst(0)) return false;
      const Operand& a = inst.operand(1);
      if (a.kind == OperandKind::Symbol) {
        di.addrSym = resolveSymbol(a.id);
        di.addrOffset = a.value;
        di.mode2 = 1;
        return di.addrSym.kind != SymRef::Kind::None || fail("unknown symbol");
      }
      return src(1, t);
    }
    case Opcode::Isspacep:
      di.op = XOp::Isspacep;
      di.space = inst.space();
      return dst(0) && src(1, ScalarType::B64);
    case Opcode::Ld:
    case Opcode::Ldu: {
      di.op = XOp::Ld;
      di.space = inst.space();
      di.strong = inst.has(Mod::Volatile) || inst.has(Mod::Relaxed) || inst.has(Mod::Acquire);
      di.vec = static_cast<uint8_t>(inst.vectorWidth());
      di.elemBytes = static_cast<uint8_t>(std::max(1u, typeBits(t) / 8));
      if (n != 2) return fail("ld takes two operands");
      if (!vectorOrReg(inst.operand(0), true, t)) return false;
      return decodeAddress(inst.operand(1), di);
    }
    case Opcode::St: {
      di.op = XOp::St;
      di.space = inst.space();
      di.strong = inst.has(Mod::Volatile) || inst.has(Mod::Relaxed) || inst.has(Mod::Release);
      di.vec = static_cast<uint8_t>(inst.vectorWidth());
      di.elemBytes = static_cast<uint8_t>(std::max(1u, typeBits(t) / 8));
      if (n != 2) return fail("st takes two operands");
      if (!decodeAddress(inst.operand(0), di)) return false;
      return vectorOrReg(inst.operand(1), false, t);
    }
    case Opcode::Atom:
    case Opcode::Red: {
      di.op = XOp::Atom;
      di.space = inst.space();
      di.elemBytes = static_cast<uint8_t>(std::max(1u, typeBits(t) / 8));
      if (inst.vectorWidth() != 1) return fail("vector atomics are not supported");
      const Mod ops[] = {Mod::And, Mod::Or, Mod::Xor, Mod::Cas, Mod::Exch, Mod::Add, Mod::Inc, Mod::Dec, Mod::Min, Mod::Max};
      for (uint8_t k = 0; k < 10; ++k)
        if (inst.has(ops[k])) di.mode = static_cast<uint8_t>(k + 1);
      if (!di.mode) return fail("atomic operation missing");
      uint32_t k = 0;
      if (inst.is(Opcode::Atom)) {
        if (!dst(0)) return false;
        k = 1;
      } else {
        di.mode2 = 1;  // red: no result
      }
      if (di.elemBytes != 4 && di.elemBytes != 8) return fail("atomics on " + std::to_string(di.elemBytes) + "-byte values are not supported");
      if (k >= n) return fail("missing address");
      if (!decodeAddress(inst.operand(k), di)) return false;
      for (uint32_t j = k + 1; j < n; ++j)
        if (!src(j, t)) return false;
      return true;
    }
    case Opcode::Bra: di.op = XOp::Bra; return true;
    case Opcode::BrxIdx:
      di.op = XOp::BrxIdx;
      return src(0, ScalarType::U32);
    case Opcode::Call: return decodeCall(f, inst, di);
    case Opcode::Ret: di.op = XOp::Ret; return true;
    case Opcode::Exit: di.op = XOp::Exit; return true;
    case Opcode::Trap: di.op = XOp::Trap; return true;
    case Opcode::Bar:
    case Opcode::Barrier: {
      di.op = XOp::Barrier;
      di.aligned = inst.is(Opcode::Bar) || inst.has(Mod::Aligned);
      bool red = inst.has(Mod::Red), arrive = inst.has(Mod::Arrive);
      di.mode = red ? 2 : arrive ? 1 : 0;
      if (red) di.mode2 = inst.has(Mod::Popc) ? 0 : inst.has(Mod::And) ? 1 : 2;
      uint32_t k = 0;
      if (red) {
        if (!dst(0)) return false;
        k = 1;
      }
      if (!src(k, ScalarType::U32)) return false;  // barrier id
      // optional thread count, then (red) the predicate
      uint32_t rest = n - k - 1;
      if (red) {
        if (rest == 2 && !src(k + 1, ScalarType::U32)) return false;
        if (!src(n - 1, ScalarType::Pred)) return false;
        di.hi = rest == 2;  // has a thread count
      } else if (rest >= 1) {
        if (!src(k + 1, ScalarType::U32)) return false;
        di.hi = true;
      }
      return true;
    }
    case Opcode::BarWarpSync:
      di.op = XOp::WarpSync;
      return src(0, ScalarType::B32);
    case Opcode::ShflSync:
    case Opcode::Shfl: {
      di.op = XOp::Shfl;
      const Mod modes[] = {Mod::Up, Mod::Down, Mod::Bfly, Mod::Idx};
      for (uint8_t k = 0; k < 4; ++k)
        if (inst.has(modes[k])) di.mode = k;
      if (!dst(0)) return false;
      for (uint32_t k = 1; k < n; ++k)
        if (!src(k, ScalarType::B32)) return false;
      di.hi = inst.is(Opcode::ShflSync);
      return true;
    }
    case Opcode::VoteSync:
    case Opcode::Vote: {
      di.op = XOp::Vote;
      di.mode = inst.has(Mod::All) ? 0 : inst.has(Mod::Any) ? 1 : inst.has(Mod::Uni) ? 2 : 3;
      if (!dst(0)) return false;
      for (uint32_t k = 1; k < n; ++k)
        if (!src(k, k == 1 ? ScalarType::Pred : ScalarType::B32)) return false;
      return true;
    }
    case Opcode::Match:
      di.op = XOp::Match;
      di.mode = inst.has(Mod::All) ? 1 : 0;
      return dst(0) && src(1, t) && src(2, ScalarType::B32);
    case Opcode::ReduxSync: {
      di.op = XOp::Redux;
      const Mod ops[] = {Mod::Add, Mod::Min, Mod::Max, Mod::And, Mod::Or, Mod::Xor};
      for (uint8_t k = 0; k < 6; ++k)
        if (inst.has(ops[k])) di.mode = k;
      return dst(0) && src(1, t) && src(2, ScalarType::B32);
    }
    case Opcode::Activemask:
      di.op = XOp::Activemask;
      return dst(0);
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Nanosleep:
    case Opcode::Pmevent:
    case Opcode::Brkpt:
    // Programmatic dependent launch: a single launch has no prerequisite grid to wait for, and
    // launching dependents early is only a scheduling hint.
    case Opcode::Griddepcontrol:
      di.op = XOp::Nop;
      return true;
    default: return fail("not emulated");
  }
}

}  // namespace

bool decodeProgram(const Module& m, Program& p, std::string& error) {
  Decoder d(m, p);
  return d.run(error);
}

// Used by the run to write initialized .global variables (numbers only; addresses are
// patched by the caller).
void writeVariableInitializer(const Variable& v, uint8_t* out, uint64_t size) { Decoder::writeInitializer(v, out, size); }

}  // namespace ptxopt::emu
