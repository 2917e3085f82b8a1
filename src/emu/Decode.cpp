// Turns the IR of a module into the emulator's flat, pre-resolved form.
#include <algorithm>
#include <cstring>
#include <map>

#include "Kernels.h"
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

// Blocks (by RPO number) from which every path ends in an unguarded `trap`: a lane there faults
// the launch before it could reach a join. ptxas reconverges a branch with such a side (an
// assert's failure path, the trap default of a switch) where its other sides meet, and so does
// the emulator: the post-dominators that place reconvergence points ignore these blocks. A
// loop among them is left out (its lanes might never trap).
std::vector<uint8_t> trapBoundBlocks(const CfgInfo& cfg) {
  const uint32_t n = cfg.size();
  std::vector<uint8_t> bound(n, 0);
  auto endsInTrap = [](const BasicBlock* b) {
    for (auto it = b->insts().rbegin(); it != b->insts().rend(); ++it)
      if (!(*it)->info().isPseudo()) return (*it)->is(Opcode::Trap) && !(*it)->hasGuard();
    return false;
  };
  for (uint32_t v = 0; v < n; ++v)
    if (cfg.succ[v].empty() && endsInTrap(cfg.rpo[v])) bound[v] = 1;
  // A block whose successors are all bound is bound; successors come later in RPO except
  // along back edges, so sweep backwards until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v = n; v-- > 0;)
      if (!bound[v] && !cfg.succ[v].empty() &&
          std::all_of(cfg.succ[v].begin(), cfg.succ[v].end(), [&](uint32_t s) { return bound[s] != 0; })) {
        bound[v] = 1;
        changed = true;
      }
  }
  return bound;
}

// What the emulator does with each opcode: a family and, for arithmetic and logic, the
// sub-operation. Opcodes not listed are not emulated.
enum class Family : uint8_t {
  None, Move, Arith, Bit, Sad, Dp, Video, Compare, Select, Slct, Convert, Cvta, Isspacep, Load, Store, Atomic,
  Branch, BranchIndexed, Call, Return, Exit, Trap, Barrier, WarpSync, Shuffle, Vote, Match, Redux, Activemask, Nop, Texture, Surface, Matrix,
  Elect, Mapa,
};
struct OpDecode {
  Family family = Family::None;
  uint8_t sub = 0;  // ArithOp or BitOp
};

struct MatrixQualifiers;

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
    // .global and .const declarations inside functions (switch-opt's value tables) are laid
    // out like module-level ones; only the function sees their names.
    for (DFunction& df : p_.functions)
      for (const Decl& d : df.ir->decls())
        if (d.kind == Decl::Kind::Var && !(d.var.linkage & Linkage::Extern) &&
            (d.var.space == StateSpace::Global || d.var.space == StateSpace::Const))
          functionVars_[&d.var] = layoutVariable(d.var, df.name + "." + std::string(m_.str(d.var.name)));
    p_.dynamicSharedOffset = alignUp(p_.staticSharedBytes, 16);
    for (DFunction& df : p_.functions)
      if (!decodeFunction(df, error)) return false;
    return true;
  }

 private:
  // Memory for a .global or .const variable: a global allocation per run, or a place in the
  // constant image with the initializer written.
  SymRef layoutVariable(const Variable& v, const std::string& name) {
    if (v.space == StateSpace::Global) {
      DGlobal g;
      g.var = &v;
      g.name = name;
      g.size = std::max<uint64_t>(v.sizeInBytes(), 1);
      g.align = naturalAlign(v);
      for (uint32_t a : v.attributes) g.managed |= m_.str(a) == ".managed";
      p_.globals.push_back(g);
      return SymRef{SymRef::Kind::GlobalVar, static_cast<uint32_t>(p_.globals.size() - 1), 0};
    }
    uint64_t off = alignUp(p_.constImage.size(), naturalAlign(v));
    p_.constImage.resize(off + v.sizeInBytes(), 0);
    writeInitializer(v, p_.constImage.data() + off, v.sizeInBytes());
    p_.consts.push_back(DConst{&v, name, off, v.sizeInBytes()});
    return SymRef{SymRef::Kind::ConstVar, 0, off};
  }

  void layoutModuleVariables() {
    for (const Variable& v : m_.globals()) {
      std::string name(m_.str(v.name));
      if (v.space == StateSpace::Global || v.space == StateSpace::Const) {
        moduleSyms_[name] = layoutVariable(v, name);
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
  // Writes the numeric part of an initializer (addresses of symbols are written when the
  // variables are placed in memory: placeModuleVariables).
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
  // Likewise an instruction that is not valid PTX (ptxas rejects it): listed and faulting as
  // invalid rather than unsupported.
  bool invalid(const std::string& why) {
    unsupportedInvalid_ = true;
    return fail(why);
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
    } else if (auto it = functionVars_.find(&v); it != functionVars_.end()) {
      ref = it->second;
    } else {
      return;  // extern declarations of other spaces
    }
    if (nested)
      scoped_[v.name].push_back(ref);
    else
      functionSyms_[v.name] = ref;
  }

  bool decodeFunction(DFunction& f, std::string& error);
  bool decodeInstruction(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeOperands(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMove(const Instruction& inst, DInst& di);
  bool decodeArith(const Instruction& inst, ArithOp op, DInst& di);
  bool decodeBit(const Instruction& inst, BitOp op, DInst& di);
  bool decodeCompare(const Instruction& inst, DInst& di);
  bool decodeVideo(const Instruction& inst, VideoOp op, DInst& di);
  bool decodeMemory(const Instruction& inst, Family family, DInst& di);
  bool decodeBarrier(const Instruction& inst, DInst& di);
  bool decodeWarp(const Instruction& inst, Family family, DInst& di);
  bool decodeAddress(const Operand& o, DInst& di);
  bool decodeAddress(const Operand& o, DAddress& a);
  bool decodeAsync(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMbarrier(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeBulk(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMapa(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeTensorCopy(DFunction& f, const Instruction& inst, DInst& di, const std::vector<StateSpace>& spaces, bool mbarrier,
                        unsigned rank, bool tile, bool hint);
  bool decodeCall(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeTexture(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeSurface(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMatrix(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeMatrixMove(const Instruction& inst, MatrixQualifiers& q, DInst& di, DMatrixOp& op);
  bool decodeMma(const Instruction& inst, MatrixQualifiers& q, bool isWmma, DInst& di, DMatrixOp& op);
  bool decodeWmmaAccess(DFunction& f, const Instruction& inst, MatrixQualifiers& q, bool load, DInst& di, DMatrixOp& op);
  bool decodeWgmma(DFunction& f, const Instruction& inst, DInst& di);
  bool decodeWgmmaMma(DFunction& f, const Instruction& inst, MatrixQualifiers& q, DMatrixOp& op);
  bool matrixRegisters(const Instruction& inst, const Operand& o, std::vector<uint32_t>& slots);

  static constexpr uint32_t kSpecialBase = 0x40000000u;
  static constexpr uint32_t kSinkSlot = 0x7FFFFFF0u;
  static constexpr uint32_t kCarrySlot = 0x7FFFFFF1u;

  const Module& m_;
  Program& p_;
  std::unordered_map<std::string, SymRef> moduleSyms_;
  std::unordered_map<const Variable*, uint64_t> functionShared_;
  std::unordered_map<const Variable*, SymRef> functionVars_;
  // per function
  std::unordered_map<uint32_t, SymRef> functionSyms_;
  std::unordered_map<uint32_t, std::vector<SymRef>> scoped_;
  std::map<uint64_t, uint32_t> constSlots_;
  std::string unsupportedWhy_;
  bool unsupportedInvalid_ = false;
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
      f.paramAligns.push_back(naturalAlign(v));
      functionSyms_[v.name] = SymRef{SymRef::Kind::KernelParam, k, kernelOffset};
      kernelOffset += v.sizeInBytes();
    } else {
      f.paramOffsets.push_back(0);
      f.paramAligns.push_back(naturalAlign(v));
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

  // Reconvergence points from the post-dominator tree, paths that end in a trap left out.
  FunctionAnalysisManager am(fn);
  const CfgInfo& cfg = am.get<CfgAnalysis>();
  const PostDominatorTree pdt = buildPostDominators(cfg, trapBoundBlocks(cfg));

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
    p_.unsupported.push_back({di.line, std::string(fn.name()), printInstruction(fn, inst), why, unsupportedInvalid_});
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
      unsupportedInvalid_ = false;
      if (decodeInstruction(f, *inst, di)) {
        selectKernels(di);
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
          if (di.op == XOp::Bra) di.target = pcOf(labels.front()), di.uni = inst->has(Mod::Uni);
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
    if (di.carrySlot == kCarrySlot) di.carrySlot = sinkSlot + 1;
  }
  return true;
}

bool Decoder::decodeAddress(const Operand& o, DInst& di) {
  DAddress a;
  if (!decodeAddress(o, a)) return false;
  di.addrFromReg = a.fromReg;
  di.addrSlot = a.slot;
  di.addrSym = a.sym;
  di.addrOffset = a.offset;
  return true;
}

bool Decoder::decodeAddress(const Operand& o, DAddress& a) {
  if (o.kind != OperandKind::Address) return fail("expected an address");
  a.offset = o.value;
  switch (o.addressBase()) {
    case AddressBase::Reg:
      a.fromReg = true;
      a.slot = o.id;
      return true;
    case AddressBase::Symbol:
      a.sym = resolveSymbol(o.id);
      if (a.sym.kind == SymRef::Kind::None) return fail("unknown symbol " + std::string(m_.str(o.id)));
      return true;
    case AddressBase::None:
      a.fromReg = false;
      a.sym = SymRef{};
      return true;
  }
  return false;
}

// The instructions the opcode table marks as asynchronous memory operations (OpFlag::AsyncMemory):
// mbarrier and cp.async.mbarrier.arrive (decodeMbarrier), the bulk copies (decodeBulk), and the
// non-bulk cp.async copy with its commit_group, wait_group and wait_all run (the tiled tensor
// copies and cp.reduce.async.bulk into global memory among the bulk ones); st.async, red.async
// and tcgen05 do not (wgmma has its own decoder, decodeWgmma). Forms the PTX ISA does not
// allow (a cp-size other than 4, 8 or 16; .cg with one other than 16; state spaces other than
// .shared{::cta} and .global; a malformed operand list) are invalid.
bool Decoder::decodeAsync(DFunction& f, const Instruction& inst, DInst& di) {
  auto modText = [&](Mod m) { return std::string(modName(m, m_.strings())); };
  auto hasText = [&](std::string_view t) {
    return std::any_of(inst.mods().begin(), inst.mods().end(), [&](Mod m) { return modText(m) == t; });
  };
  if (inst.is(Opcode::Mbarrier) || (inst.is(Opcode::Cp) && hasText(".mbarrier"))) return decodeMbarrier(f, inst, di);
  if (inst.is(Opcode::Cp) && inst.has(Mod::Async) && inst.has(Mod::Bulk)) return decodeBulk(f, inst, di);
  if (!inst.is(Opcode::Cp) || !inst.has(Mod::Async)) return fail("not emulated");
  const std::string text = printInstruction(*f.ir, inst);
  const std::string name = text.substr(0, text.find_first_of(" \t"));
  // commit_group, wait_group N, wait_all: only `.async` besides.
  for (Mod form : {Mod::CommitGroup, Mod::WaitGroup, Mod::WaitAll}) {
    if (!inst.has(form)) continue;
    for (Mod m : inst.mods())
      if (m != Mod::Async && m != form) return invalid("unexpected qualifier '" + modText(m) + "' on " + name);
    if (form == Mod::WaitGroup) {
      if (inst.numOperands() != 1 || !inst.operand(0).isImm() || inst.operand(0).value < 0 ||
          inst.operand(0).value > 0xFFFFFFFFll)
        return invalid("cp.async.wait_group takes one non-negative integer constant");
      di.op = XOp::CpAsyncWait;
      di.call = static_cast<uint32_t>(inst.operand(0).value);
      return true;
    }
    if (inst.numOperands() != 0) return invalid(name + " takes no operands");
    di.op = form == Mod::CommitGroup ? XOp::CpAsyncCommit : XOp::CpAsyncWait;
    di.waitAll = form == Mod::WaitAll;
    return true;
  }
  const bool ca = inst.has(Mod::Ca), cg = inst.has(Mod::Cg);
  if (!ca && !cg) return fail("not emulated");
  // Qualifiers: .async, one of .ca/.cg, the destination's and the source's state spaces in
  // that order, and the cache hints (.L2::cache_hint, .L2::64B/128B/256B), which change nothing here.
  std::vector<StateSpace> spaces;
  for (Mod m : inst.mods()) {
    if (auto sp = modSpace(m)) {
      spaces.push_back(*sp);
      continue;
    }
    const std::string t = modText(m);
    if (m == Mod::Async || m == Mod::Ca || m == Mod::Cg || m == Mod::L2CacheHint || t == ".L2::64B" ||
        t == ".L2::128B" || t == ".L2::256B")
      continue;
    return invalid("unexpected qualifier '" + t + "' on " + name);
  }
  if (ca && cg) return invalid("cp.async takes one of .ca and .cg, not both");
  if (spaces.size() != 2 || (spaces[0] != StateSpace::Shared && spaces[0] != StateSpace::SharedCta) ||
      spaces[1] != StateSpace::Global)
    return invalid(
        "cp.async copies from .global to .shared or .shared::cta (cp.async.ca.shared.global): the destination must be "
        "shared memory");
  const bool hint = inst.has(Mod::L2CacheHint);
  const uint32_t n = inst.numOperands();
  if (n < 3u + hint || n > 4u + hint)
    return invalid(std::string("cp.async takes [dst], [src], cp-size, an optional src-size or ignore-src") +
                   (hint ? ", and a cache-policy (.L2::cache_hint)" : "") + "; this one has " + std::to_string(n) +
                   " operand(s)");
  if (inst.operand(0).kind != OperandKind::Address || inst.operand(1).kind != OperandKind::Address)
    return invalid("cp.async's first two operands are addresses, [dst] and [src]");
  DAsyncCopy c;
  if (!decodeAddress(inst.operand(0), di) || !decodeAddress(inst.operand(1), c.src)) return false;
  auto symName = [&](const Operand& o) { return std::string(m_.str(o.id)); };
  if (!di.addrFromReg && di.addrSym.kind != SymRef::Kind::None && di.addrSym.kind != SymRef::Kind::SharedVar)
    return invalid("the destination names '" + symName(inst.operand(0)) +
                   "', which is not a .shared variable: cp.async writes shared memory");
  if (!c.src.fromReg && c.src.sym.kind != SymRef::Kind::None && c.src.sym.kind != SymRef::Kind::GlobalVar)
    return invalid("the source names '" + symName(inst.operand(1)) +
                   "', which is not a .global variable: cp.async reads global memory");
  const Operand& size = inst.operand(2);
  if (!size.isImm()) return invalid("cp.async's cp-size must be an integer constant (4, 8 or 16)");
  if (size.value != 4 && size.value != 8 && size.value != 16)
    return invalid("cp-size " + std::to_string(size.value) + " is not allowed: cp.async copies 4, 8 or 16 bytes");
  if (cg && size.value != 16)
    return invalid("cp-size " + std::to_string(size.value) + " is not allowed with .cg: cp.async.cg copies 16 bytes");
  c.cpSize = static_cast<uint8_t>(size.value);
  if (n == 4u + hint) {
    const Operand& o = inst.operand(3);
    if (o.isImm()) {
      if (o.value < 0 || o.value > c.cpSize)
        return invalid("src-size " + std::to_string(o.value) + " is larger than cp-size " + std::to_string(c.cpSize) +
                       " (undefined in PTX)");
      c.fill = DAsyncCopy::Fill::SrcSize;
      c.fillSlot = constSlot(f, static_cast<uint64_t>(o.value));
    } else if (o.kind == OperandKind::Reg && o.component() == Component::None && o.id < f.ir->regs().size()) {
      const bool pred = f.ir->reg(o.id).type == ScalarType::Pred;
      c.fill = pred ? DAsyncCopy::Fill::IgnoreSrc : DAsyncCopy::Fill::SrcSize;
      c.fillSlot = o.id;
      c.fillNegated = pred && o.negated();
    } else {
      return invalid("cp.async's fourth operand is a src-size (a 32-bit integer) or an ignore-src predicate");
    }
  }
  if (hint && inst.operand(n - 1).kind != OperandKind::Reg)
    return invalid("cp.async.L2::cache_hint's last operand is a 64-bit cache-policy register");
  di.op = XOp::CpAsync;
  di.space = StateSpace::Shared;
  di.call = static_cast<uint32_t>(f.asyncCopies.size());
  f.asyncCopies.push_back(c);
  return true;
}

// mbarrier{.op}{.sem}{.scope}{.space}.b64 and cp.async.mbarrier.arrive{.noinc}{.space}.b64 (PTX
// ISA, "Parallel Synchronization and Communication Instructions: mbarrier"): the mbarrier is
// DInst's address (a .shared variable or a register; generic without a state space), a result
// (state, waitComplete, pending count) dst[0], the count, tx-count, state or phase parity
// src[0]. The .sem and .scope qualifiers change nothing here (one CTA per cluster, every access
// visible at once); .shared::cluster names the CTA's own shared memory.
bool Decoder::decodeMbarrier(DFunction& f, const Instruction& inst, DInst& di) {
  const bool cpAsync = inst.is(Opcode::Cp);
  const char* name = cpAsync ? "cp.async.mbarrier.arrive" : "mbarrier";
  std::string op;
  bool sharedSpace = false;
  for (Mod m : inst.mods()) {
    if (modType(m)) continue;
    if (auto sp = modSpace(m)) {
      if (*sp != StateSpace::Shared && *sp != StateSpace::SharedCta && *sp != StateSpace::SharedCluster)
        return invalid(std::string(name) + " takes an mbarrier in shared memory (.shared, .shared::cta, .shared::cluster)");
      sharedSpace = true;
      continue;
    }
    const std::string t(modName(m, m_.strings()));
    if (t == ".parity") di.parity = true;
    else if (t == ".noinc") di.noinc = true;
    else if (t == ".expect_tx" && (op == "arrive" || op == "arrive_drop")) di.expectTx = true;
    else if (t == ".init" || t == ".arrive" || t == ".arrive_drop" || t == ".expect_tx" || t == ".complete_tx" ||
             t == ".test_wait" || t == ".try_wait" || t == ".pending_count" || t == ".inval") {
      if (!op.empty()) return invalid(std::string(name) + " with two operations, ." + op + " and " + t);
      op = t.substr(1);
    } else if (t == ".mbarrier" && cpAsync) {
    } else if (cpAsync && (t == ".async" || t == ".arrive")) {
    } else if (t == ".release" || t == ".acquire" || t == ".relaxed" || t == ".cta" || t == ".cluster" ||
               t == ".noComplete") {
    } else {
      return invalid("unexpected qualifier '" + t + "' on " + name);
    }
  }
  if (cpAsync) op = "cp.async";
  static const std::pair<const char*, MbarOp> ops[] = {
      {"init", MbarOp::Init}, {"arrive", MbarOp::Arrive}, {"arrive_drop", MbarOp::ArriveDrop},
      {"expect_tx", MbarOp::ExpectTx}, {"complete_tx", MbarOp::CompleteTx}, {"test_wait", MbarOp::TestWait},
      {"try_wait", MbarOp::TryWait}, {"pending_count", MbarOp::PendingCount}, {"inval", MbarOp::Inval},
      {"cp.async", MbarOp::CpAsyncArrive}};
  auto found = std::find_if(std::begin(ops), std::end(ops), [&](const auto& o) { return op == o.first; });
  if (found == std::end(ops)) return invalid("mbarrier without an operation (.init, .arrive, .try_wait, ...)");
  di.mbar = found->second;
  const bool wait = di.mbar == MbarOp::TestWait || di.mbar == MbarOp::TryWait;
  if (di.parity && !wait) return invalid(".parity is a qualifier of mbarrier.test_wait and try_wait");
  if (di.noinc && di.mbar != MbarOp::CpAsyncArrive) return invalid(".noinc is a qualifier of cp.async.mbarrier.arrive");
  // Operands: a result (all but init, expect_tx, complete_tx, inval and cp.async...arrive), the
  // mbarrier's address (all but pending_count), then the operation's values.
  const bool result = di.mbar == MbarOp::Arrive || di.mbar == MbarOp::ArriveDrop || wait || di.mbar == MbarOp::PendingCount;
  const bool address = di.mbar != MbarOp::PendingCount;
  unsigned minValues = 0, maxValues = 0;
  switch (di.mbar) {
    case MbarOp::Init:
    case MbarOp::ExpectTx:
    case MbarOp::CompleteTx: minValues = maxValues = 1; break;
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop: minValues = di.expectTx ? 1 : 0, maxValues = 1; break;
    case MbarOp::TestWait: minValues = maxValues = 1; break;
    case MbarOp::TryWait: minValues = 1, maxValues = 2; break;  // state or parity, a suspend-time hint
    case MbarOp::PendingCount: minValues = maxValues = 1; break;
    default: break;
  }
  const unsigned n = inst.numOperands(), fixed = (result ? 1u : 0u) + (address ? 1u : 0u);
  if (n < fixed + minValues || n > fixed + maxValues)
    return invalid(std::string(name) + (cpAsync ? "" : "." + op) + " takes " + std::to_string(fixed + minValues) +
                   (maxValues > minValues ? " or " + std::to_string(fixed + maxValues) : std::string()) + " operand(s); this one has " +
                   std::to_string(n));
  uint32_t k = 0;
  if (result) {
    const Operand& o = inst.operand(k++);
    if (o.kind == OperandKind::Address) return invalid(std::string("mbarrier.") + op + "'s first operand is its result");
    if (!dstSlot(o, di.dst[di.ndst++])) return false;
  }
  if (address) {
    const Operand& o = inst.operand(k++);
    if (o.kind != OperandKind::Address) return invalid(std::string(name) + " needs the mbarrier's address, [addr]");
    if (!decodeAddress(o, di)) return false;
    if (!di.addrFromReg && di.addrSym.kind != SymRef::Kind::None && di.addrSym.kind != SymRef::Kind::SharedVar)
      return invalid("the mbarrier names '" + std::string(m_.str(o.id)) + "', which is not a .shared variable");
    di.space = sharedSpace || di.addrSym.kind == SymRef::Kind::SharedVar ? StateSpace::Shared : StateSpace::Generic;
  }
  for (; k < n; ++k) {
    const Operand& o = inst.operand(k);
    if (o.kind != OperandKind::Reg && !o.isImm()) return invalid(std::string(name) + "'s values are registers or constants");
    const bool state = (wait && !di.parity && di.nsrc == 0) || di.mbar == MbarOp::PendingCount;
    if (!srcSlot(f, o, state ? ScalarType::B64 : ScalarType::U32, di.src[di.nsrc++])) return false;
  }
  di.hasCount = di.nsrc > 0;
  di.op = XOp::Mbarrier;
  return true;
}

// cp.async.bulk (PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk"): global or
// the CTA's shared memory to shared memory, completing tx bytes on an mbarrier
// (.mbarrier::complete_tx::bytes), and shared memory to global memory in bulk groups
// (.bulk_group); cp.async.bulk.commit_group and wait_group{.read} N; cp.async.bulk.prefetch (no
// effect); the tiled tensor copies (decodeTensorCopy) and cp.reduce.async.bulk into global memory
// of 32- and 64-bit elements. .multicast::cluster, .cp_mask, im2col and the reductions into
// shared memory are not emulated.
bool Decoder::decodeBulk(DFunction& f, const Instruction& inst, DInst& di) {
  std::vector<StateSpace> spaces;
  DBulkCopy c;
  bool mbarrier = false, bulkGroup = false, hint = false, prefetch = false, read = false, tile = false;
  const bool reduction = std::any_of(inst.mods().begin(), inst.mods().end(),
                                     [&](Mod m) { return modName(m, m_.strings()) == ".reduce"; });
  static const std::pair<Mod, AtomOp> kReduceOps[] = {
      {Mod::And, AtomOp::And}, {Mod::Or, AtomOp::Or},   {Mod::Xor, AtomOp::Xor}, {Mod::Add, AtomOp::Add},
      {Mod::Inc, AtomOp::Inc}, {Mod::Dec, AtomOp::Dec}, {Mod::Min, AtomOp::Min}, {Mod::Max, AtomOp::Max}};
  auto reduceOp = [&](Mod m) {
    return std::find_if(std::begin(kReduceOps), std::end(kReduceOps), [&](const auto& o) { return o.first == m; });
  };
  unsigned tensorRank = 0;
  std::string form;
  for (Mod m : inst.mods()) {
    if (modType(m)) continue;
    if (auto sp = modSpace(m)) {
      spaces.push_back(*sp);
      continue;
    }
    const std::string t(modName(m, m_.strings()));
    if (t == ".async" || t == ".bulk" || t == ".reduce" || t == ".noftz") continue;
    if (reduction && reduceOp(m) != std::end(kReduceOps)) {
      c.reduce = reduceOp(m)->second;
      c.reduction = true;
      continue;
    }
    if (t == ".mbarrier::complete_tx::bytes") mbarrier = true;
    else if (t == ".bulk_group") bulkGroup = true;
    else if (t == ".L2::cache_hint") hint = true;
    else if (t == ".prefetch") prefetch = true;
    else if (t == ".L2" && prefetch) {
    } else if (t == ".read") read = true;
    else if (t == ".commit_group" || t == ".wait_group") form = t;
    else if (t == ".tensor") tensorRank = tensorRank ? tensorRank : 6;  // the rank comes with .Nd
    else if (t.size() == 3 && t[0] == '.' && t[1] >= '1' && t[1] <= '5' && t[2] == 'd') tensorRank = static_cast<unsigned>(t[1] - '0');
    else if (t == ".tile") tile = true;
    else if (t == ".multicast::cluster" || t == ".cp_mask" || t == ".im2col" || t == ".im2col::w" ||
             t == ".im2col::w::128" || t == ".tile::gather4" || t == ".tile::scatter4")
      return fail("cp.async.bulk with " + t + " is not emulated");
    else return invalid("unexpected qualifier '" + t + "' on cp.async.bulk");
  }
  if (form == ".commit_group") {
    if (inst.numOperands() != 0 || read) return invalid("cp.async.bulk.commit_group takes no operands");
    di.op = XOp::CpAsyncBulkCommit;
    return true;
  }
  if (form == ".wait_group") {
    if (inst.numOperands() != 1 || !inst.operand(0).isImm() || inst.operand(0).value < 0 || inst.operand(0).value > 0xFFFFFFFFll)
      return invalid("cp.async.bulk.wait_group takes one non-negative integer constant");
    di.op = XOp::CpAsyncBulkWait;
    di.call = static_cast<uint32_t>(inst.operand(0).value);
    di.readOnly = read;
    return true;
  }
  if (read) return invalid(".read is a qualifier of cp.async.bulk.wait_group");
  const uint32_t n = inst.numOperands();
  if (prefetch && tensorRank) {  // cp.async.bulk.prefetch.tensor: no effect
    di.op = XOp::Nop;
    return true;
  }
  if (tensorRank) {
    if (reduction) return fail("cp.reduce.async.bulk.tensor is not emulated");
    return decodeTensorCopy(f, inst, di, spaces, mbarrier, tensorRank, tile, hint);
  }
  if (prefetch) {
    if (n != 2u + hint || inst.operand(0).kind != OperandKind::Address)
      return invalid("cp.async.bulk.prefetch.L2.global takes [src], size and, with .L2::cache_hint, a cache-policy");
    di.op = XOp::Nop;
    return true;
  }
  const bool toShared = spaces.size() == 2 && (spaces[0] == StateSpace::SharedCluster || spaces[0] == StateSpace::SharedCta);
  if (toShared && (spaces[1] == StateSpace::Global || spaces[1] == StateSpace::SharedCta) && mbarrier && !bulkGroup) {
    c.fromShared = spaces[1] == StateSpace::SharedCta;
  } else if (spaces.size() == 2 && spaces[0] == StateSpace::Global && spaces[1] == StateSpace::SharedCta && bulkGroup && !mbarrier) {
    c.toGlobal = true;
  } else {
    return invalid(
        "cp.async.bulk copies .global to .shared::cluster (or .shared::cta) with .mbarrier::complete_tx::bytes, "
        ".shared::cta to .shared::cluster with .mbarrier::complete_tx::bytes, or .shared::cta to .global with "
        ".bulk_group");
  }
  if (reduction && !c.toGlobal)
    return fail("cp.reduce.async.bulk other than .global.shared::cta.bulk_group is not emulated");
  const uint32_t need = (c.toGlobal ? 3u : 4u) + hint;
  if (n != need)
    return invalid("cp.async.bulk takes [dst], [src], size" + std::string(c.toGlobal ? "" : ", [mbar]") +
                   (hint ? ", a cache-policy" : "") + "; this one has " + std::to_string(n) + " operand(s)");
  if (inst.operand(0).kind != OperandKind::Address || inst.operand(1).kind != OperandKind::Address ||
      (!c.toGlobal && inst.operand(3).kind != OperandKind::Address))
    return invalid("cp.async.bulk's [dst], [src] and [mbar] are addresses");
  if (!decodeAddress(inst.operand(0), di) || !decodeAddress(inst.operand(1), c.src)) return false;
  if (!c.toGlobal && !decodeAddress(inst.operand(3), c.mbar)) return false;
  const Operand& size = inst.operand(2);
  if (size.kind != OperandKind::Reg && !size.isImm()) return invalid("cp.async.bulk's size is a register or a constant");
  if (size.isImm() && (size.value <= 0 || size.value % 16))
    return invalid("cp.async.bulk size " + std::to_string(size.value) + " is not a positive multiple of 16");
  if (!srcSlot(f, size, ScalarType::U32, di.src[di.nsrc++])) return false;
  if (reduction) {
    if (!c.reduction) return invalid("cp.reduce.async.bulk needs its operation (.add, .min, .max, .inc, .dec, .and, .or, .xor)");
    const unsigned bits = typeBits(di.t);
    if (bits != 32 && bits != 64)
      return fail("cp.reduce.async.bulk of " + std::string(typeName(di.t)) + " elements is not emulated (32- and 64-bit ones are)");
  }
  di.op = XOp::CpAsyncBulk;
  di.space = c.toGlobal ? StateSpace::Global : StateSpace::Shared;
  di.call = static_cast<uint32_t>(f.bulkCopies.size());
  f.bulkCopies.push_back(c);
  return true;
}

// cp.async.bulk.tensor.{1..5}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// {.L2::cache_hint} [dst], [tensorMap, {c0, ...}], [mbar]{, policy}: the box of the tensor map
// at the coordinates, into shared memory, completing its bytes on the mbarrier.
bool Decoder::decodeTensorCopy(DFunction& f, const Instruction& inst, DInst& di, const std::vector<StateSpace>& spaces,
                               bool mbarrier, unsigned rank, bool tile, bool hint) {
  if (rank > 5) return invalid("cp.async.bulk.tensor needs its dimensions (.1d to .5d)");
  if (spaces.size() != 2 || (spaces[0] != StateSpace::SharedCluster && spaces[0] != StateSpace::SharedCta) ||
      spaces[1] != StateSpace::Global || !mbarrier)
    return fail("cp.async.bulk.tensor other than global to shared memory with .mbarrier::complete_tx::bytes is not emulated");
  (void)tile;  // .tile is the default load mode
  const uint32_t n = inst.numOperands();
  if (n != 3u + hint || inst.operand(0).kind != OperandKind::Address || inst.operand(2).kind != OperandKind::Address)
    return invalid("cp.async.bulk.tensor takes [dst], [tensorMap, {coordinates}], [mbar]" +
                   std::string(hint ? " and a cache-policy" : ""));
  const Operand& map = inst.operand(1);
  if (map.kind != OperandKind::Bracket || map.aux != 2)
    return invalid("cp.async.bulk.tensor's second operand is [tensorMap, {coordinates}]");
  DBulkCopy c;
  c.tensorRank = static_cast<uint8_t>(rank);
  const Operand& handle = inst.elements(map)[0];
  const Operand& coords = inst.elements(map)[1];
  if (handle.kind == OperandKind::Reg) {
    c.tensorMap.fromReg = true;
    c.tensorMap.slot = handle.id;
  } else if (handle.kind == OperandKind::Symbol) {
    c.tensorMap.sym = resolveSymbol(handle.id);
    if (c.tensorMap.sym.kind == SymRef::Kind::None) return fail("unknown symbol " + std::string(m_.str(handle.id)));
  } else {
    return invalid("cp.async.bulk.tensor's tensor map is a register or a parameter's name");
  }
  std::vector<Operand> cs;
  if (coords.kind == OperandKind::Vector)
    for (const Operand& e : inst.elements(coords)) cs.push_back(e);
  else
    cs.push_back(coords);
  if (cs.size() != rank)
    return invalid("cp.async.bulk.tensor." + std::to_string(rank) + "d takes " + std::to_string(rank) + " coordinate(s), not " +
                   std::to_string(cs.size()));
  for (const Operand& e : cs)
    if (!srcSlot(f, e, ScalarType::S32, di.src[di.nsrc++])) return false;
  if (!decodeAddress(inst.operand(0), di) || !decodeAddress(inst.operand(2), c.mbar)) return false;
  di.op = XOp::CpAsyncBulk;
  di.space = StateSpace::Shared;
  di.call = static_cast<uint32_t>(f.bulkCopies.size());
  f.bulkCopies.push_back(c);
  return true;
}

// mapa{.space}.u32/.u64 d, a, rank: the address of `a` in the CTA of the cluster with `rank`.
// Clusters have one CTA here, so rank 0 gives `a` itself; another rank faults.
bool Decoder::decodeMapa(DFunction& f, const Instruction& inst, DInst& di) {
  if (!decodeOperands(f, inst, di)) return false;
  if (di.ndst != 1 || di.nsrc != 2) return fail("mapa with a variable operand is not emulated");
  di.op = XOp::Mapa;
  return true;
}

bool Decoder::decodeCall(DFunction& f, const Instruction& inst, DInst& di) {
  // call{.uni} (ret...), target, (args...){, prototype|targets};
  DCall c;
  uint32_t k = 0;
  std::vector<const Operand*> lists;
  const Operand* target = callTarget(inst);
  for (; k < inst.numOperands(); ++k)
    if (inst.operand(k).kind == OperandKind::List) lists.push_back(&inst.operand(k));
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

// tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} {d0, d1, d2, d3}, [handle, {coords}]: a
// texture object in a .u64 register (or an immediate); a layered form's layer index (.s32)
// comes first among the coordinates, and a 3D or .a2d form has a fourth, unused coordinate.
bool Decoder::decodeTexture(DFunction& f, const Instruction& inst, DInst& di) {
  int dims = 0;
  bool layered = false;
  const bool gather = inst.is(Opcode::Tld4);
  const char* op = gather ? "tld4" : "tex";
  // .level and .grad choose a mipmap level; every texture here has one (the runtime refuses
  // mipmapped arrays), which they read as tex does. Their extra operands are not used.
  unsigned extra = 0;
  di.texGather = 0;
  for (Mod m : inst.mods()) {
    std::string_view name = modName(m, m_.strings());
    if (gather && (name == ".r" || name == ".g" || name == ".b" || name == ".a"))
      di.texGather = static_cast<uint8_t>(std::string_view("rgba").find(name[1]) + 1);
    if (name == ".1d") dims = 1;
    else if (name == ".2d") dims = 2;
    else if (name == ".3d") dims = 3;
    else if (name == ".a1d") dims = 1, layered = true;
    else if (name == ".a2d") dims = 2, layered = true;
    else if (!gather && name == ".level") extra = 1;
    else if (!gather && name == ".grad") extra = 2;
    else if (name == ".cube" || name == ".acube" || name == ".2dms" || name == ".a2dms" || name == ".level" ||
             name == ".grad" || name == ".base")
      return fail(op + std::string(name) + " is not emulated");
  }
  if (!dims) return fail(std::string(op) + " without a geometry (.1d, .2d, .3d, .a1d, .a2d)");
  if (gather && (dims != 2 || !di.texGather)) return fail("tld4 other than .r/.g/.b/.a .2d/.a2d is not emulated");
  if (gather && inst.type(1) != ScalarType::F32) return fail("tld4 coordinates must be .f32");
  if (inst.vectorWidth() != 4) return fail("tex results other than .v4 are not emulated");
  const ScalarType dt = inst.type(0), ct = inst.type(1);
  if (dt != ScalarType::F32 && dt != ScalarType::S32 && dt != ScalarType::U32)
    return fail("tex results of type " + std::string(typeName(dt)) + " are not emulated (.f32, .s32, .u32)");
  if (ct != ScalarType::F32 && ct != ScalarType::S32) return fail("tex coordinates must be .f32 or .s32");
  if (inst.numOperands() != 2 + extra)
    return fail(std::string(op) + " with a predicate result, an offset or a depth comparison is not emulated");
  const Operand& res = inst.operand(0);
  const Operand& addr = inst.operand(1);
  if (res.kind != OperandKind::Vector || res.aux != 4) return fail("tex needs a vector of four results");
  for (const Operand& e : inst.elements(res))
    if (!dstSlot(e, di.dst[di.ndst++])) return false;
  if (addr.kind != OperandKind::Bracket || addr.aux != 2)
    return fail("tex needs [texture, {coordinates}] (texture references and separate samplers are not emulated)");
  const Operand& handle = inst.elements(addr)[0];
  const Operand& coords = inst.elements(addr)[1];
  if (handle.kind != OperandKind::Reg && handle.kind != OperandKind::Imm)
    return fail("tex through a texture reference (a .texref name) is not emulated; use a texture object");
  if (!srcSlot(f, handle, ScalarType::U64, di.src[di.nsrc++])) return false;
  std::vector<Operand> cs;
  if (coords.kind == OperandKind::Vector) {
    for (const Operand& e : inst.elements(coords)) cs.push_back(e);
  } else {
    cs.push_back(coords);
  }
  const size_t need = static_cast<size_t>(dims + (layered ? 1 : 0));
  if (cs.size() < need) return fail("tex needs " + std::to_string(need) + " coordinates");
  for (size_t k = 0; k < need; ++k)
    if (!srcSlot(f, cs[k], layered && k == 0 ? ScalarType::S32 : ct, di.src[di.nsrc++])) return false;
  di.op = XOp::Tex;
  di.texDims = static_cast<uint8_t>(dims);
  di.texLayered = layered;
  di.texIntCoords = ct == ScalarType::S32;
  return true;
}

// suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} {d...}, [surf, {coords}]
// and sust.b... [surf, {coords}], {a...}: a surface object in a .u64 register; x is in bytes,
// the other coordinates in rows and slices; a layered form's layer comes first.
bool Decoder::decodeSurface(DFunction& f, const Instruction& inst, DInst& di) {
  const bool store = inst.is(Opcode::Sust);
  int dims = 0;
  bool layered = false, raw = false;
  di.surfaceOob = 0;
  for (Mod m : inst.mods()) {
    std::string_view name = modName(m, m_.strings());
    if (name == ".1d") dims = 1;
    else if (name == ".2d") dims = 2;
    else if (name == ".3d") dims = 3;
    else if (name == ".a1d") dims = 1, layered = true;
    else if (name == ".a2d") dims = 2, layered = true;
    else if (name == ".b") raw = true;
    else if (name == ".trap") di.surfaceOob = 0;
    else if (name == ".clamp") di.surfaceOob = 1;
    else if (name == ".zero") di.surfaceOob = 2;
    else if (name == ".p") return fail(std::string(store ? "sust" : "suld") + ".p (formatted access) is not emulated");
  }
  if (!raw) return fail("surface access without .b is not emulated");
  if (!dims) return fail("surface access without a geometry (.1d, .2d, .3d, .a1d, .a2d)");
  const unsigned bits = typeBits(inst.type(0));
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return fail("surface elements are .b8, .b16, .b32 or .b64");
  di.vec = static_cast<uint8_t>(inst.vectorWidth());
  di.elemBytes = static_cast<uint8_t>(bits / 8);
  if (inst.numOperands() != 2) return fail("surface access with other operands is not emulated");
  const Operand& addr = inst.operand(store ? 0 : 1);
  const Operand& data = inst.operand(store ? 1 : 0);
  if (addr.kind != OperandKind::Bracket || addr.aux != 2) return fail("surface access needs [surface, {coordinates}]");
  const Operand& handle = inst.elements(addr)[0];
  const Operand& coords = inst.elements(addr)[1];
  if (handle.kind != OperandKind::Reg && handle.kind != OperandKind::Imm)
    return fail("surface references (.surfref names) are not emulated; use a surface object");
  if (!srcSlot(f, handle, ScalarType::U64, di.src[di.nsrc++])) return false;
  std::vector<Operand> cs, ds;
  if (coords.kind == OperandKind::Vector) {
    for (const Operand& e : inst.elements(coords)) cs.push_back(e);
  } else {
    cs.push_back(coords);
  }
  if (data.kind == OperandKind::Vector) {
    for (const Operand& e : inst.elements(data)) ds.push_back(e);
  } else {
    ds.push_back(data);
  }
  const size_t need = static_cast<size_t>(dims + (layered ? 1 : 0));
  if (cs.size() < need) return fail("surface access needs " + std::to_string(need) + " coordinates");
  if (ds.size() != di.vec) return fail("surface access with " + std::to_string(ds.size()) + " values for .v" + std::to_string(di.vec));
  for (size_t k = 0; k < need; ++k)
    if (!srcSlot(f, cs[k], ScalarType::S32, di.src[di.nsrc++])) return false;
  for (const Operand& e : ds)
    if (store ? !srcSlot(f, e, inst.type(0), di.src[di.nsrc++]) : !dstSlot(e, di.dst[di.ndst++])) return false;
  di.op = store ? XOp::Sust : XOp::Suld;
  di.texDims = static_cast<uint8_t>(dims);
  di.texLayered = layered;
  return true;
}

// ---- tensor cores -------------------------------------------------------------------------------
// ldmatrix, stmatrix, movmatrix, mma.sync and wmma (docs/EMULATOR.md, "Tensor cores"). The
// qualifiers are read by name; one the emulator does not know makes the form unsupported.

namespace {

MmaType mmaTypeNamed(std::string_view s) {
  for (MmaType t :
       {MmaType::F16, MmaType::BF16, MmaType::TF32, MmaType::F32, MmaType::F64, MmaType::S8, MmaType::U8, MmaType::S32})
    if (s == mmaTypeName(t)) return t;
  return MmaType::None;
}

// "m16n8k16" (m, n, k) or "m8n8" (m, n; k = 0).
bool parseMatrixShape(std::string_view s, MmaForm& f) {
  unsigned v[3] = {0, 0, 0};
  const char keys[3] = {'m', 'n', 'k'};
  size_t pos = 0;
  for (int part = 0; part < 3 && pos < s.size(); ++part) {
    if (s[pos] != keys[part]) return false;
    size_t end = ++pos;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9')
      v[part] = v[part] * 10 + static_cast<unsigned>(s[end++] - '0');
    if (end == pos || v[part] > 256) return false;
    pos = end;
  }
  if (pos != s.size() || !v[0] || !v[1]) return false;
  f.m = static_cast<uint16_t>(v[0]), f.n = static_cast<uint16_t>(v[1]), f.k = static_cast<uint16_t>(v[2]);
  return true;
}


}  // namespace

// The qualifiers of a tensor-core instruction, without their dots, taken one by one as the decoder
// recognizes them; what is left over makes the form unsupported.
struct MatrixQualifiers {
  std::string what;                // the opcode, for messages
  std::vector<std::string> quals;  // in order
  MmaForm shape;                   // m, n and k of the shape qualifier
  bool shaped = false;
  std::vector<MmaType> types;  // the element types, in order (takeTypes)

  bool take(std::string_view q) {
    auto it = std::find(quals.begin(), quals.end(), q);
    if (it == quals.end()) return false;
    quals.erase(it);
    return true;
  }
  void takeShape() {
    for (auto it = quals.begin(); it != quals.end(); ++it)
      if (parseMatrixShape(*it, shape)) {
        quals.erase(it);
        shaped = true;
        return;
      }
  }
  void takeTypes() {
    for (auto it = quals.begin(); it != quals.end();)
      if (MmaType t = mmaTypeNamed(*it); t != MmaType::None) {
        types.push_back(t);
        it = quals.erase(it);
      } else {
        ++it;
      }
  }
  // The first qualifier nobody took, for "not emulated" (empty when all were taken).
  std::string leftover() const {
    return quals.empty() ? std::string() : what + " with ." + quals[0] + " is not emulated";
  }
};

// A fragment operand: a brace-enclosed list of registers (or one register), as slots.
bool Decoder::matrixRegisters(const Instruction& inst, const Operand& o, std::vector<uint32_t>& slots) {
  auto one = [&](const Operand& e) {
    if (e.kind != OperandKind::Reg || e.component() != Component::None)
      return fail("a fragment operand is a list of registers");
    slots.push_back(e.id);
    return true;
  };
  if (o.kind != OperandKind::Vector) return one(o);
  for (const Operand& e : inst.elements(o))
    if (!one(e)) return false;
  return true;
}

bool Decoder::decodeMatrix(DFunction& f, const Instruction& inst, DInst& di) {
  MatrixQualifiers q;
  q.what = std::string(inst.info().name);
  for (Mod m : inst.mods()) {
    if (auto sp = modSpace(m)) {
      di.space = *sp;
      continue;
    }
    std::string_view name = modName(m, m_.strings());
    q.quals.emplace_back(name.substr(name.starts_with('.') ? 1 : 0));
  }
  q.takeShape();
  const bool isWmma = q.what == "wmma";
  std::string wmmaOp;
  if (isWmma) {
    for (const char* o : {"load", "store", "mma"})
      if (q.take(o)) {
        wmmaOp = o;
        break;
      }
    if (wmmaOp.empty()) return fail("wmma." + (q.quals.empty() ? std::string() : q.quals[0]) + " is not emulated");
    q.what += "." + wmmaOp;
  }
  if (!q.take("sync") || !q.take("aligned")) return invalid(q.what + " needs .sync.aligned");
  if (!q.shaped) return invalid(q.what + " without a shape");
  DMatrixOp op;
  op.form = q.shape;
  const bool ok = !isWmma && q.what != "mma"              ? decodeMatrixMove(inst, q, di, op)
                  : wmmaOp != "load" && wmmaOp != "store" ? decodeMma(inst, q, isWmma, di, op)
                                                          : decodeWmmaAccess(f, inst, q, wmmaOp == "load", di, op);
  if (!ok) return false;
  di.call = static_cast<uint32_t>(f.matrixOps.size());
  f.matrixOps.push_back(std::move(op));
  return true;
}

// ldmatrix, stmatrix and movmatrix: 8x8 matrices of 16-bit elements.
bool Decoder::decodeMatrixMove(const Instruction& inst, MatrixQualifiers& q, DInst& di, DMatrixOp& op) {
  const bool mov = q.what == "movmatrix", ld = q.what == "ldmatrix";
  if (op.form.m != 8 || op.form.n != 8 || op.form.k)
    return fail(q.what + " of this shape (8-bit elements) is not emulated");
  op.trans = q.take("trans");
  if (!q.take("b16")) return fail(q.what + " of other than .b16 elements is not emulated");
  if (mov) {
    if (!op.trans) return invalid("movmatrix needs .trans");
  } else {
    op.matrices = q.take("x1") ? 1 : q.take("x2") ? 2 : q.take("x4") ? 4 : 0;
    if (!op.matrices) return invalid(q.what + " needs .x1, .x2 or .x4");
  }
  if (!q.leftover().empty()) return fail(q.leftover());
  if (di.space != StateSpace::Generic && di.space != StateSpace::Shared && di.space != StateSpace::SharedCta)
    return invalid(q.what + " accesses shared memory: the state space is .shared or .shared::cta");
  if (inst.numOperands() != 2) return invalid(q.what + " takes two operands");
  if (mov) {
    di.op = XOp::Movmatrix;
    if (!matrixRegisters(inst, inst.operand(0), op.d) || !matrixRegisters(inst, inst.operand(1), op.a)) return false;
    if (op.d.size() != 1 || op.a.size() != 1) return invalid("movmatrix moves one register");
    return true;
  }
  di.op = ld ? XOp::Ldmatrix : XOp::Stmatrix;
  const Operand& addr = inst.operand(ld ? 1 : 0);
  if (addr.kind != OperandKind::Address)
    return invalid(q.what + (ld ? "'s second" : "'s first") + " operand is the address");
  if (!decodeAddress(addr, di)) return false;
  std::vector<uint32_t>& regs = ld ? op.d : op.a;
  if (!matrixRegisters(inst, inst.operand(ld ? 0 : 1), regs)) return false;
  if (regs.size() != op.matrices)
    return invalid(q.what + ".x" + std::to_string(op.matrices) + " takes " + std::to_string(op.matrices) +
                   " register(s)");
  return true;
}

// mma.sync and wmma.mma: D = A * B + C (the types .dtype.atype.btype.ctype; wmma's f16 form
// names .dtype.ctype only).
bool Decoder::decodeMma(const Instruction& inst, MatrixQualifiers& q, bool isWmma, DInst& di, DMatrixOp& op) {
  op.form.satfinite = q.take("satfinite");
  q.take("rn");  // f64: the only rounding there is
  // A's and B's layouts, in that order.
  std::vector<std::string> layouts;
  for (auto it = q.quals.begin(); it != q.quals.end();)
    if (*it == "row" || *it == "col") {
      layouts.push_back(*it);
      it = q.quals.erase(it);
    } else {
      ++it;
    }
  q.takeTypes();
  if (!q.leftover().empty()) return fail(q.leftover());
  if (layouts.size() != 2) return invalid(q.what + " needs the layouts of A and B (.row or .col each)");
  std::vector<MmaType>& t = q.types;
  if (isWmma && t.size() == 2) t = {t[0], MmaType::F16, MmaType::F16, t[1]};
  if (t.size() != 4) return invalid(q.what + " names the types of D, A, B and C");
  op.form.d = t[0], op.form.a = t[1], op.form.b = t[2], op.form.c = t[3];
  // wmma.mma: the layouts change nothing here (the loads put every element in its place in the
  // fragment). mma.sync: .row.col, the one pair its shapes have, except sm_70's m8n8k4 .f16,
  // whose four quad-pair multiply-accumulates (MmaForm::groups) take either layout of each.
  const bool quadPairs = !isWmma && op.form.m == 8 && op.form.n == 8 && op.form.k == 4 && op.form.a == MmaType::F16;
  if (quadPairs) {
    op.form.groups = 4;
    op.form.aColMajor = layouts[0] == "col";
    op.form.bColMajor = layouts[1] == "col";
  } else if (!isWmma && (layouts[0] != "row" || layouts[1] != "col")) {
    return fail(q.what + " with other than .row.col layouts is not emulated");
  }
  auto layout = [&](MatrixRole r) { return isWmma ? wmmaFragment(op.form, r) : mmaFragment(op.form, r); };
  if (!layout(MatrixRole::A))
    return fail(q.what + " .m" + std::to_string(op.form.m) + "n" + std::to_string(op.form.n) + "k" +
                std::to_string(op.form.k) + " with ." + mmaTypeName(op.form.d) + "." + mmaTypeName(op.form.a) + "." +
                mmaTypeName(op.form.b) + "." + mmaTypeName(op.form.c) + (op.form.satfinite ? " .satfinite" : "") +
                " is not emulated");
  if (inst.numOperands() != 4) return invalid(q.what + " takes four operands: d, a, b, c");
  std::vector<uint32_t>* lists[4] = {&op.d, &op.a, &op.b, &op.c};
  const MatrixRole roles[4] = {MatrixRole::C, MatrixRole::A, MatrixRole::B, MatrixRole::C};
  for (int k = 0; k < 4; ++k) {
    if (!matrixRegisters(inst, inst.operand(k), *lists[k])) return false;
    // mma: exactly the fragment; wmma: the fragment, possibly repeated.
    const unsigned have = static_cast<unsigned>(lists[k]->size()) * mmaPerRegister(t[static_cast<size_t>(k)]);
    const unsigned need = layout(roles[k]).perLane;
    if (isWmma ? have % need != 0 || have == 0 : have != need)
      return invalid(q.what + ": fragment " + "dabc"[k] + " has " + std::to_string(lists[k]->size()) +
                     " register(s), which does not fit");
  }
  di.op = isWmma ? XOp::WmmaMma : XOp::Mma;
  return true;
}

// wgmma (PTX ISA, section 9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
// .fence, .commit_group, .wait_group N and .mma_async, each .sync{.aligned}.
bool Decoder::decodeWgmma(DFunction& f, const Instruction& inst, DInst& di) {
  MatrixQualifiers q;
  q.what = "wgmma";
  for (Mod m : inst.mods()) {
    std::string_view name = modName(m, m_.strings());
    q.quals.emplace_back(name.substr(name.starts_with('.') ? 1 : 0));
  }
  std::string form;
  for (const char* o : {"fence", "commit_group", "wait_group", "mma_async"})
    if (q.take(o)) {
      form = o;
      break;
    }
  if (form.empty()) return fail("wgmma." + (q.quals.empty() ? std::string() : q.quals[0]) + " is not emulated");
  q.what += "." + form;
  // .aligned may be left out (ptxas accepts that); the emulator requires it of every warp anyway.
  q.take("aligned");
  if (!q.take("sync")) return invalid(q.what + " needs .sync");
  if (form == "mma_async") {
    DMatrixOp op;
    if (!decodeWgmmaMma(f, inst, q, op)) return false;
    di.op = XOp::WgmmaMma;
    di.call = static_cast<uint32_t>(f.matrixOps.size());
    f.matrixOps.push_back(std::move(op));
    return true;
  }
  if (!q.quals.empty()) return invalid(q.what + " takes no ." + q.quals[0]);
  if (form == "wait_group") {
    if (inst.numOperands() != 1 || !inst.operand(0).isImm() || inst.operand(0).value < 0 ||
        inst.operand(0).value > 0xFFFFFFFFll)
      return invalid("wgmma.wait_group takes one non-negative integer constant");
    di.op = XOp::WgmmaWait;
    di.call = static_cast<uint32_t>(inst.operand(0).value);
    return true;
  }
  if (inst.numOperands() != 0) return invalid(q.what + " takes no operands");
  di.op = form == "fence" ? XOp::WgmmaFence : XOp::WgmmaCommit;
  return true;
}

// wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype (PTX ISA, section 9.7.15.5.2): operands
// d, a (a descriptor or four registers), b's descriptor, scale-d, then, for f16/bf16 and tf32,
// imm-scale-a and imm-scale-b, and for f16/bf16 imm-trans-a (descriptor A only) and imm-trans-b.
bool Decoder::decodeWgmmaMma(DFunction& f, const Instruction& inst, MatrixQualifiers& q, DMatrixOp& op) {
  q.takeShape();
  op.form = q.shape;
  op.form.satfinite = q.take("satfinite");
  q.takeTypes();
  if (!q.leftover().empty()) return fail(q.leftover());
  if (!q.shaped) return invalid(q.what + " without a shape");
  if (q.types.size() != 3) return invalid(q.what + " names the types of D, A and B");
  MmaForm& F = op.form;
  F.d = F.c = q.types[0], F.a = q.types[1], F.b = q.types[2];
  const bool half = F.a == MmaType::F16 || F.a == MmaType::BF16;
  const bool integer = F.a == MmaType::S8 || F.a == MmaType::U8;
  const bool typesOk = half       ? F.b == F.a && (F.d == MmaType::F32 || (F.a == MmaType::F16 && F.d == MmaType::F16))
                       : integer  ? (F.b == MmaType::S8 || F.b == MmaType::U8) && F.d == MmaType::S32
                       : F.a == MmaType::TF32 ? F.b == F.a && F.d == MmaType::F32
                                              : false;
  if (!typesOk)
    return fail(q.what + " ." + mmaTypeName(F.d) + "." + mmaTypeName(F.a) + "." + mmaTypeName(F.b) + " is not emulated");
  if (F.satfinite && !integer) return invalid(q.what + ".satfinite is for integer types");
  const unsigned k = half ? 16 : integer ? 32 : 8;
  const bool nOk = F.n >= 8 && F.n <= 256 && F.n % 8 == 0 && (!integer || F.n <= 32 || F.n % 16 == 0);
  if (F.m != 64 || F.k != k || !nOk)
    return invalid(q.what + " with ." + mmaTypeName(F.a) + " has shape m64nNk" + std::to_string(k) +
                   " (N a multiple of 8 from 8 to 256" + (integer ? ", of 16 above 32)" : ")"));
  const uint32_t n = inst.numOperands();
  if (n < 4) return invalid(q.what + " takes d, a, b-desc and scale-d, and the immediates of its type");
  if (!matrixRegisters(inst, inst.operand(0), op.d)) return false;
  const unsigned dRegs = F.n / 2 / (F.d == MmaType::F16 ? 2 : 1);
  if (op.d.size() != dRegs)
    return invalid(q.what + ": d has " + std::to_string(op.d.size()) + " register(s), the shape needs " +
                   std::to_string(dRegs));
  op.c = op.d;
  op.aInRegs = inst.operand(1).kind == OperandKind::Vector;
  if (op.aInRegs) {
    if (!matrixRegisters(inst, inst.operand(1), op.a)) return false;
    if (op.a.size() != 4) return invalid(q.what + ": a in registers is four .b32 registers");
  } else if (!srcSlot(f, inst.operand(1), ScalarType::U64, op.descASlot)) {
    return false;
  }
  if (!srcSlot(f, inst.operand(2), ScalarType::U64, op.descBSlot)) return false;
  const uint32_t want = integer ? 4 : F.a == MmaType::TF32 ? 6 : op.aInRegs ? 7 : 8;
  if (n != want)
    return invalid(q.what + " with ." + mmaTypeName(F.a) + (op.aInRegs ? " and a in registers" : "") + " takes " +
                   std::to_string(want) + " operands");
  const Operand& sd = inst.operand(3);
  if (sd.isImm()) {
    if (sd.value != 0 && sd.value != 1) return invalid(q.what + "'s scale-d is a predicate or 0 or 1");
    op.scaleD = sd.value != 0;
  } else if (sd.kind == OperandKind::Reg && sd.component() == Component::None && sd.id < f.ir->regs().size() &&
             f.ir->reg(sd.id).type == ScalarType::Pred) {
    op.scaleDConst = false;
    op.scaleDSlot = sd.id;
    op.scaleDNegated = sd.negated();
  } else {
    return invalid(q.what + "'s scale-d is a predicate or 0 or 1");
  }
  // The immediates: imm-scale-a, imm-scale-b (1 or -1), imm-trans-a, imm-trans-b (0 or 1).
  for (uint32_t i = 4; i < n; ++i) {
    const Operand& o = inst.operand(i);
    const bool scale = i < 6;
    const bool ok = o.isImm() && (scale ? o.value == 1 || o.value == -1 : o.value == 0 || o.value == 1);
    if (!ok) return invalid(q.what + ": imm-scale-a/b are 1 or -1, imm-trans-a/b 0 or 1");
    if (i == 4) op.negA = o.value == -1;
    if (i == 5) op.negB = o.value == -1;
    if (i == 6) (op.aInRegs ? op.transB : op.transA) = o.value == 1;
    if (i == 7) op.transB = o.value == 1;
  }
  return true;
}

// wmma.load.{a,b,c} and wmma.store.d: a fragment, an address and an optional stride.
bool Decoder::decodeWmmaAccess(DFunction& f, const Instruction& inst, MatrixQualifiers& q, bool load, DInst& di,
                               DMatrixOp& op) {
  const bool a = load && q.take("a"), b = load && !a && q.take("b"), c = load && !a && !b && q.take("c");
  if (load ? !(a || b || c) : !q.take("d")) return invalid(q.what + (load ? " needs .a, .b or .c" : " needs .d"));
  op.role = a ? MatrixRole::A : b ? MatrixRole::B : MatrixRole::C;
  op.colMajor = q.take("col");
  if (!op.colMajor && !q.take("row")) return invalid(q.what + " needs .row or .col");
  q.takeTypes();
  if (!q.leftover().empty()) return fail(q.leftover());
  if (q.types.size() != 1) return invalid(q.what + " names one element type");
  const MmaType e = op.elem = q.types[0];
  // A multiply-accumulate form with these elements, for the fragment's layout. An accumulator's
  // layout depends on the shape only: any multiplicand type of the shape will do.
  const bool accumulator = op.role == MatrixRole::C;
  MmaType in = e;
  if (accumulator)
    in = e == MmaType::S32   ? MmaType::S8
         : e == MmaType::F64 ? MmaType::F64
         : op.form.k == 8    ? MmaType::TF32
                             : MmaType::F16;
  const MmaType acc = accumulator                              ? e
                      : (e == MmaType::S8 || e == MmaType::U8) ? MmaType::S32
                      : e == MmaType::F64                      ? MmaType::F64
                                                               : MmaType::F32;
  op.form.a = op.form.b = in;
  op.form.c = op.form.d = acc;
  const FragmentLayout fl = wmmaFragment(op.form, op.role);
  if (!fl) return fail(q.what + " of ." + mmaTypeName(e) + " for this shape is not emulated");
  if (di.space != StateSpace::Generic && di.space != StateSpace::Global && di.space != StateSpace::Shared &&
      di.space != StateSpace::SharedCta)
    return invalid(q.what + " accesses .global or .shared memory");
  const uint32_t n = inst.numOperands();
  if (n != 2 && n != 3) return invalid(q.what + " takes a fragment, an address and an optional stride");
  const Operand& addr = inst.operand(load ? 1 : 0);
  if (addr.kind != OperandKind::Address) return invalid(q.what + "'s address operand is missing");
  if (!decodeAddress(addr, di)) return false;
  std::vector<uint32_t>& regs = load ? op.d : op.a;
  if (!matrixRegisters(inst, inst.operand(load ? 0 : 1), regs)) return false;
  const unsigned have = static_cast<unsigned>(regs.size()) * mmaPerRegister(e);
  if (have == 0 || have % fl.perLane != 0)
    return invalid(q.what + ": the fragment has " + std::to_string(regs.size()) + " register(s), which does not fit");
  if (n == 3) {
    op.hasStride = true;
    const Operand& s = inst.operand(2);
    if (s.kind == OperandKind::Special) return invalid(q.what + "'s stride is a register or a constant");
    if (!srcSlot(f, s, ScalarType::U32, op.strideSlot)) return false;
  }
  di.op = load ? XOp::WmmaLoad : XOp::WmmaStore;
  return true;
}

// ---- instructions -------------------------------------------------------------------------

// Register slots of every operand, in operand order, from the instruction's operand shape
// (Opcodes.def): written registers (pairs and vectors element by element) to dst, read
// values to src with the type the shape gives each, the address to the address fields, a
// variable's name read as a value (mov, cvta) to addrSym. Free-form instructions (calls,
// opaque families) are left to their family.
bool Decoder::decodeOperands(DFunction& f, const Instruction& inst, DInst& di) {
  const OperandShape* shape = selectShape(inst);
  if (!shape) return signatureOf(inst.opcode()).isFree() || fail("no operand shape fits");
  auto dst = [&](const Operand& o) {
    if (di.ndst >= 8) return fail("too many results");
    return dstSlot(o, di.dst[di.ndst++]);
  };
  auto src = [&](const Operand& o, ScalarType t) {
    if (di.nsrc >= 8) return fail("too many operands");
    if (o.negated()) di.negMask |= static_cast<uint8_t>(1u << di.nsrc);
    return srcSlot(f, o, t, di.src[di.nsrc++]);
  };
  for (uint32_t k = 0; k < inst.numOperands(); ++k) {
    const OperandSpec& spec = shape->ops[k];
    const Operand& o = inst.operand(k);
    if (spec.role == OperandRole::Label || spec.role == OperandRole::Table) continue;
    if (spec.role == OperandRole::Address) {
      if (!decodeAddress(o, di)) return false;
      continue;
    }
    const bool composite = o.kind == OperandKind::Vector || o.kind == OperandKind::Pair;
    if (spec.def) {
      if (composite) {
        for (const Operand& e : inst.elements(o))
          if (!dst(e)) return false;
      } else if (!dst(o)) {
        return false;
      }
      continue;
    }
    if (o.kind == OperandKind::Symbol) {  // the address of a variable or function
      di.symbolOperand = true;
      di.addrSym = resolveSymbol(o.id);
      di.addrOffset = o.value;
      if (di.addrSym.kind == SymRef::Kind::None) return fail("unknown symbol " + std::string(m_.str(o.id)));
      continue;
    }
    // Packed elements (mov.b64 %rd, {%r1, %r2}) are raw bits; vector elements have the type.
    ScalarType t = spec.has(OperandAccept::Pack) && composite ? ScalarType::B64 : resolveType(spec.type, inst);
    if (composite) {
      for (const Operand& e : inst.elements(o))
        if (!src(e, t)) return false;
    } else if (!src(o, t)) {
      return false;
    }
  }
  return true;
}

namespace {

const OpDecode& decodeOf(Opcode op) {
  static const auto table = [] {
    std::array<OpDecode, static_cast<size_t>(Opcode::NumOpcodes)> t{};
    auto set = [&](Opcode op, Family f, uint8_t sub = 0) { t[static_cast<size_t>(op)] = {f, sub}; };
    auto arith = [&](Opcode op, ArithOp a) { set(op, Family::Arith, static_cast<uint8_t>(a)); };
    auto bit = [&](Opcode op, BitOp b) { set(op, Family::Bit, static_cast<uint8_t>(b)); };
    arith(Opcode::Add, ArithOp::Add), arith(Opcode::Addc, ArithOp::Add), arith(Opcode::Sub, ArithOp::Sub);
    arith(Opcode::Subc, ArithOp::Sub), arith(Opcode::Mul, ArithOp::Mul), arith(Opcode::Mad, ArithOp::Mad);
    arith(Opcode::Madc, ArithOp::Mad), arith(Opcode::Fma, ArithOp::Mad), arith(Opcode::Div, ArithOp::Div);
    arith(Opcode::Rem, ArithOp::Rem), arith(Opcode::Abs, ArithOp::Abs), arith(Opcode::Neg, ArithOp::Neg);
    arith(Opcode::Min, ArithOp::Min), arith(Opcode::Max, ArithOp::Max), arith(Opcode::Mul24, ArithOp::Mul24);
    arith(Opcode::Mad24, ArithOp::Mad24), arith(Opcode::Sqrt, ArithOp::Sqrt), arith(Opcode::Rsqrt, ArithOp::Rsqrt);
    arith(Opcode::Rcp, ArithOp::Rcp), arith(Opcode::Ex2, ArithOp::Ex2), arith(Opcode::Lg2, ArithOp::Lg2);
    arith(Opcode::Sin, ArithOp::Sin), arith(Opcode::Cos, ArithOp::Cos), arith(Opcode::Tanh, ArithOp::Tanh);
    arith(Opcode::Copysign, ArithOp::Copysign), arith(Opcode::Testp, ArithOp::Testp);
    bit(Opcode::And, BitOp::And), bit(Opcode::Or, BitOp::Or), bit(Opcode::Xor, BitOp::Xor), bit(Opcode::Not, BitOp::Not);
    bit(Opcode::Cnot, BitOp::Cnot), bit(Opcode::Popc, BitOp::Popc), bit(Opcode::Clz, BitOp::Clz);
    bit(Opcode::Bfind, BitOp::Bfind), bit(Opcode::Brev, BitOp::Brev), bit(Opcode::Bfe, BitOp::Bfe);
    bit(Opcode::Bfi, BitOp::Bfi), bit(Opcode::Prmt, BitOp::Prmt), bit(Opcode::Lop3, BitOp::Lop3);
    bit(Opcode::Shf, BitOp::Shf), bit(Opcode::Shl, BitOp::Shl), bit(Opcode::Shr, BitOp::Shr);
    bit(Opcode::Bmsk, BitOp::Bmsk), bit(Opcode::Szext, BitOp::Szext);
    set(Opcode::Mov, Family::Move), set(Opcode::Sad, Family::Sad), set(Opcode::Dp4a, Family::Dp), set(Opcode::Dp2a, Family::Dp);
    set(Opcode::Setp, Family::Compare), set(Opcode::Set, Family::Compare), set(Opcode::Selp, Family::Select);
    set(Opcode::Slct, Family::Slct), set(Opcode::Cvt, Family::Convert), set(Opcode::Cvta, Family::Cvta);
    set(Opcode::Isspacep, Family::Isspacep), set(Opcode::Ld, Family::Load), set(Opcode::Ldu, Family::Load);
    set(Opcode::St, Family::Store), set(Opcode::Atom, Family::Atomic), set(Opcode::Red, Family::Atomic);
    set(Opcode::Bra, Family::Branch), set(Opcode::BrxIdx, Family::BranchIndexed), set(Opcode::Call, Family::Call);
    set(Opcode::Ret, Family::Return), set(Opcode::Exit, Family::Exit), set(Opcode::Trap, Family::Trap);
    set(Opcode::Bar, Family::Barrier), set(Opcode::Barrier, Family::Barrier), set(Opcode::BarWarpSync, Family::WarpSync);
    set(Opcode::ShflSync, Family::Shuffle), set(Opcode::Shfl, Family::Shuffle), set(Opcode::VoteSync, Family::Vote);
    set(Opcode::Vote, Family::Vote), set(Opcode::Match, Family::Match), set(Opcode::ReduxSync, Family::Redux);
    set(Opcode::Activemask, Family::Activemask), set(Opcode::Tex, Family::Texture), set(Opcode::Tld4, Family::Texture);
    set(Opcode::Suld, Family::Surface), set(Opcode::Sust, Family::Surface);
    auto video = [&](Opcode op, VideoOp v) { set(op, Family::Video, static_cast<uint8_t>(v)); };
    video(Opcode::Vadd2, VideoOp::Add), video(Opcode::Vadd4, VideoOp::Add), video(Opcode::Vsub2, VideoOp::Sub);
    video(Opcode::Vsub4, VideoOp::Sub), video(Opcode::Vavrg2, VideoOp::Avrg), video(Opcode::Vavrg4, VideoOp::Avrg);
    video(Opcode::Vabsdiff2, VideoOp::Absdiff), video(Opcode::Vabsdiff4, VideoOp::Absdiff);
    video(Opcode::Vmin2, VideoOp::Min), video(Opcode::Vmin4, VideoOp::Min), video(Opcode::Vmax2, VideoOp::Max);
    video(Opcode::Vmax4, VideoOp::Max), video(Opcode::Vset2, VideoOp::Set), video(Opcode::Vset4, VideoOp::Set);
    for (Opcode op : {Opcode::Ldmatrix, Opcode::Stmatrix, Opcode::Movmatrix, Opcode::Mma, Opcode::Wmma})
      set(op, Family::Matrix);
    set(Opcode::ElectSync, Family::Elect), set(Opcode::Mapa, Family::Mapa);
    // No effect a single launch can observe: fences, prefetches, sleeps, profiler events, and
    // programmatic dependent launch (no prerequisite grid; launching dependents early is a hint).
    for (Opcode op : {Opcode::Membar, Opcode::Fence, Opcode::Prefetch, Opcode::Prefetchu, Opcode::Nanosleep,
                      Opcode::Pmevent, Opcode::Brkpt, Opcode::Griddepcontrol})
      set(op, Family::Nop);
    return t;
  }();
  return table[static_cast<size_t>(op)];
}

// The first of `mods` the instruction has, as its index; `otherwise` when none.
template <typename E, size_t N>
E pick(const Instruction& inst, const Mod (&mods)[N], E otherwise) {
  for (size_t k = 0; k < N; ++k)
    if (inst.has(mods[k])) return static_cast<E>(k);
  return otherwise;
}

}  // namespace

// vop2/vop4 .dtype.atype.btype{.sat|.add} and vset2/vset4 .atype.btype.cmp{.add}, every type
// .u32 or .s32; selectors on a and b (bytes for the 4-way forms, half-words for the 2-way ones,
// one digit per element) and a mask on d (positions, any subset).
bool Decoder::decodeVideo(const Instruction& inst, VideoOp op, DInst& di) {
  DVideo& v = di.video;
  v.op = op;
  const bool four = inst.is(Opcode::Vadd4) || inst.is(Opcode::Vsub4) || inst.is(Opcode::Vavrg4) ||
                    inst.is(Opcode::Vabsdiff4) || inst.is(Opcode::Vmin4) || inst.is(Opcode::Vmax4) ||
                    inst.is(Opcode::Vset4);
  v.lanes = four ? 4 : 2;
  const unsigned typeCount = op == VideoOp::Set ? 2 : 3;
  for (unsigned k = 0; k < 3; ++k) {
    const ScalarType t = inst.type(k);
    if (k < typeCount ? (t != ScalarType::U32 && t != ScalarType::S32) : t != ScalarType::None)
      return invalid(op == VideoOp::Set ? "vset2/vset4 take two types, each .u32 or .s32 (.atype.btype)"
                                        : "a SIMD video instruction takes three types, each .u32 or .s32 (.dtype.atype.btype)");
  }
  const unsigned first = op == VideoOp::Set ? 0 : 1;
  v.signedD = op != VideoOp::Set && inst.type(0) == ScalarType::S32;
  v.signedA = inst.type(first) == ScalarType::S32;
  v.signedB = inst.type(first + 1) == ScalarType::S32;
  v.add = inst.has(Mod::Add);
  if (v.add && di.sat) return invalid(".sat cannot be used with .add on a SIMD video instruction");
  if (op == VideoOp::Set) {
    const auto c = inst.cmp();
    if (!c || (*c != CmpOp::Eq && *c != CmpOp::Ne && *c != CmpOp::Lt && *c != CmpOp::Le && *c != CmpOp::Gt &&
               *c != CmpOp::Ge))
      return invalid("vset2/vset4 compare with one of .eq .ne .lt .le .gt .ge");
    di.cmp = *c;
  }
  // The elements a selector names, lowest position first; the defaults are a's elements and b's.
  const unsigned perWord = v.lanes;
  for (unsigned i = 0; i < v.lanes; ++i) v.asel[i] = static_cast<uint8_t>(i), v.bsel[i] = static_cast<uint8_t>(perWord + i);
  auto selector = [&](unsigned operand, uint8_t* out) {
    const auto sel = inst.operand(operand).videoSelector();
    if (!sel) return true;
    if (sel->halves == four || sel->count != v.lanes)
      return invalid("operand " + std::to_string(operand + 1) + "'s selector " + videoSelectorName(*sel) + " must name " +
                     std::to_string(v.lanes) + (four ? " bytes (.bxyzw)" : " half-words (.hxy)"));
    for (unsigned i = 0; i < v.lanes; ++i) out[i] = sel->at(i);
    return true;
  };
  if (!selector(1, v.asel) || !selector(2, v.bsel)) return false;
  if (inst.operand(3).videoSelector()) return invalid("the operand c of a SIMD video instruction takes no selector");
  v.mask = static_cast<uint8_t>((1u << v.lanes) - 1);
  if (const auto m = inst.operand(0).videoSelector()) {
    if (m->halves == four) return invalid(std::string("the mask on d names ") + (four ? "bytes (.b3210, .b10, ...)" : "half-words (.h10, .h0, .h1)"));
    v.mask = 0;
    for (unsigned k = 0; k < m->count; ++k) {
      if (m->digit[k] >= v.lanes) return invalid("the mask " + videoSelectorName(*m) + " names a position past the last element");
      v.mask |= static_cast<uint8_t>(1u << m->digit[k]);
    }
  }
  di.op = XOp::Video;
  return true;
}

bool Decoder::decodeInstruction(DFunction& f, const Instruction& inst, DInst& di) {
  if (inst.is(Opcode::Wgmma)) return decodeWgmma(f, inst, di);
  if (inst.info().is(OpFlag::AsyncMemory)) return decodeAsync(f, inst, di);
  const OpDecode& d = decodeOf(inst.opcode());
  if (d.family == Family::None) return fail("not emulated");
  if (d.family == Family::Call) return decodeCall(f, inst, di);
  if (d.family == Family::Texture) return decodeTexture(f, inst, di);
  if (d.family == Family::Surface) return decodeSurface(f, inst, di);
  if (d.family == Family::Matrix) return decodeMatrix(f, inst, di);
  if (d.family == Family::Mapa) return decodeMapa(f, inst, di);
  if (!decodeOperands(f, inst, di)) return false;
  di.ftz = inst.has(Mod::Ftz);
  di.sat = inst.has(Mod::Sat);
  di.approx = inst.has(Mod::Approx);
  di.relu = inst.has(Mod::Relu);
  if (auto r = inst.rounding()) {
    di.rnd = arithRounding(r);
    di.hasRounding = true;
    di.toIntegral = *r == Rounding::Rni || *r == Rounding::Rzi || *r == Rounding::Rmi || *r == Rounding::Rpi;
  }
  switch (d.family) {
    case Family::Move: return decodeMove(inst, di);
    case Family::Arith: return decodeArith(inst, static_cast<ArithOp>(d.sub), di);
    case Family::Bit: return decodeBit(inst, static_cast<BitOp>(d.sub), di);
    case Family::Sad: di.op = XOp::Sad; return true;
    case Family::Dp:
      di.op = XOp::Dp;
      di.dpFour = inst.is(Opcode::Dp4a);
      di.dpHigh = inst.has(Mod::Hi);
      return true;
    case Family::Video: return decodeVideo(inst, static_cast<VideoOp>(d.sub), di);
    case Family::Compare: return decodeCompare(inst, di);
    case Family::Select: di.op = XOp::Selp; return true;
    case Family::Slct: di.op = XOp::Slct; return true;
    case Family::Convert: di.op = XOp::Cvt; return true;
    case Family::Cvta:
      di.op = XOp::Cvta;
      di.space = inst.space();
      di.toSpace = inst.has(Mod::To);
      return true;
    case Family::Isspacep:
      di.op = XOp::Isspacep;
      di.space = inst.space();
      return true;
    case Family::Load:
    case Family::Store:
    case Family::Atomic: return decodeMemory(inst, d.family, di);
    case Family::Branch: di.op = XOp::Bra; return true;
    case Family::BranchIndexed: di.op = XOp::BrxIdx; return true;
    case Family::Return: di.op = XOp::Ret; return true;
    case Family::Exit: di.op = XOp::Exit; return true;
    case Family::Trap: di.op = XOp::Trap; return true;
    case Family::Barrier: return decodeBarrier(inst, di);
    case Family::WarpSync:
    case Family::Shuffle:
    case Family::Vote:
    case Family::Match:
    case Family::Redux:
    case Family::Activemask:
    case Family::Elect: return decodeWarp(inst, d.family, di);
    case Family::Nop: di.op = XOp::Nop; return true;
    default: return fail("not emulated");
  }
}

bool Decoder::decodeMove(const Instruction& inst, DInst& di) {
  const unsigned bytes = typeBits(di.t) / 8;
  if (inst.operand(0).kind == OperandKind::Vector) {
    di.op = XOp::MovUnpack;
    di.elemBytes = static_cast<uint8_t>(bytes / std::max<unsigned>(1, di.ndst));
    return true;
  }
  if (inst.operand(1).kind == OperandKind::Vector) {
    di.op = XOp::MovPack;
    di.elemBytes = static_cast<uint8_t>(bytes / std::max<unsigned>(1, di.nsrc));
    return true;
  }
  di.op = XOp::Mov;
  const Operand& a = inst.operand(1);
  if (a.kind == OperandKind::Special) {
    SpecialReg sr = static_cast<SpecialReg>(a.id);
    if (sr == SpecialReg::Clock || sr == SpecialReg::ClockHi || sr == SpecialReg::Clock64 || sr == SpecialReg::Globaltimer ||
        sr == SpecialReg::GlobaltimerLo || sr == SpecialReg::GlobaltimerHi) {
      di.op = XOp::ReadClock;
      di.clock = sr;
    }
  }
  return true;
}

bool Decoder::decodeArith(const Instruction& inst, ArithOp op, DInst& di) {
  di.arith = op;
  di.nan = inst.has(Mod::NaN) ? MinMaxNaN::Propagate : MinMaxNaN::Drop;
  if (inst.has(Mod::Xorsign)) return fail("min/max .xorsign.abs is not emulated");
  const TypeClass cls = typeClass(di.t);
  if (cls == TypeClass::Float) {
    const bool half = di.t != ScalarType::F32 && di.t != ScalarType::F64;
    di.op = half ? XOp::HalfArith : XOp::FloatArith;
    if (!floatOpSupported(op, di.t)) return fail(std::string(inst.info().name) + " is not emulated for " + std::string(typeName(di.t)));
    if (op == ArithOp::Testp) {
      const Mod tests[] = {Mod::Finite, Mod::Infinite, Mod::Number, Mod::Notanumber, Mod::Normal, Mod::Subnormal};
      di.test = pick(inst, tests, TestKind::Finite);
    }
    return true;
  }
  if (cls != TypeClass::Signed && cls != TypeClass::Unsigned && cls != TypeClass::Bit)
    return fail(std::string(inst.info().name) + " is not emulated for this type");
  if (op >= ArithOp::Sqrt) return fail(std::string(inst.info().name) + " of integers");
  di.op = XOp::IntArith;
  di.wide = inst.has(Mod::Wide);
  di.hi = inst.has(Mod::Hi);
  di.setsCarry = inst.has(Mod::Cc);
  di.readsCarry = inst.info().is(OpFlag::ReadsCarry);
  di.carrySlot = kCarrySlot;
  return true;
}

bool Decoder::decodeBit(const Instruction& inst, BitOp op, DInst& di) {
  di.op = XOp::BitOp;
  di.bit = op;
  if (di.ndst > 1) return fail("lop3 with a predicate result is not emulated");
  di.shiftLeft = inst.has(Mod::L);
  di.shiftAmount = inst.has(Mod::Shiftamt);
  // shf: .clamp or .wrap; bmsk and szext: .wrap or .clamp
  di.clamp = op == BitOp::Shf ? inst.has(Mod::Clamp) : !inst.has(Mod::Wrap);
  const Mod modes[] = {Mod::None, Mod::F4e, Mod::B4e, Mod::Rc8, Mod::Ecl, Mod::Ecr, Mod::Rc16};
  di.prmt = pick(inst, modes, PrmtMode::Index);
  return true;
}

bool Decoder::decodeCompare(const Instruction& inst, DInst& di) {
  di.op = inst.is(Opcode::Setp) ? XOp::Setp : XOp::Set;
  auto c = inst.cmp();
  if (!c) return fail("comparison missing");
  di.cmp = *c;
  const Mod ops[] = {Mod::None, Mod::And, Mod::Or, Mod::Xor};
  di.boolOp = pick(inst, ops, BoolOp::None);
  if (di.op == XOp::Set) {  // set.cmp.dtype.stype: compare in the second type, write the first
    di.t2 = inst.type(0);
    di.t = inst.type(1);
  }
  return true;
}

bool Decoder::decodeMemory(const Instruction& inst, Family family, DInst& di) {
  di.space = inst.space();
  di.vec = static_cast<uint8_t>(inst.vectorWidth());
  di.elemBytes = static_cast<uint8_t>(std::max(1u, typeBits(di.t) / 8));
  if (family == Family::Load) {
    di.op = XOp::Ld;
    di.strong = inst.memoryStrength() != Instruction::MemoryStrength::Weak;
    return true;
  }
  if (family == Family::Store) {
    di.op = XOp::St;
    di.strong = inst.memoryStrength() != Instruction::MemoryStrength::Weak;
    return true;
  }
  di.op = XOp::Atom;
  di.noResult = inst.is(Opcode::Red);
  if (di.vec != 1) return fail("vector atomics are not supported");
  const Mod ops[] = {Mod::And, Mod::Or, Mod::Xor, Mod::Cas, Mod::Exch, Mod::Add, Mod::Inc, Mod::Dec, Mod::Min, Mod::Max};
  bool found = false;
  for (Mod m : ops) found |= inst.has(m);
  if (!found) return fail("atomic operation missing");
  di.atom = pick(inst, ops, AtomOp::Add);
  if (di.elemBytes != 4 && di.elemBytes != 8) return fail("atomics on " + std::to_string(di.elemBytes) + "-byte values are not supported");
  return true;
}

bool Decoder::decodeBarrier(const Instruction& inst, DInst& di) {
  di.op = XOp::Barrier;
  di.aligned = inst.is(Opcode::Bar) || inst.has(Mod::Aligned);
  di.barrier = inst.has(Mod::Red) ? BarrierKind::Reduce : inst.has(Mod::Arrive) ? BarrierKind::Arrive : BarrierKind::Sync;
  const Mod ops[] = {Mod::Popc, Mod::And, Mod::Or};
  di.barrierReduce = pick(inst, ops, BarrierReduce::Popc);
  // barrier id, an optional thread count, and (.red) the predicate
  di.hasCount = di.nsrc == (di.barrier == BarrierKind::Reduce ? 3 : 2);
  return true;
}

bool Decoder::decodeWarp(const Instruction& inst, Family family, DInst& di) {
  switch (family) {
    case Family::WarpSync: di.op = XOp::WarpSync; return true;
    case Family::Shuffle: {
      di.op = XOp::Shfl;
      const Mod modes[] = {Mod::Up, Mod::Down, Mod::Bfly, Mod::Idx};
      di.shfl = pick(inst, modes, ShflMode::Up);
      di.sync = inst.is(Opcode::ShflSync) || inst.has(Mod::Sync);
      return true;
    }
    case Family::Vote: {
      di.op = XOp::Vote;
      const Mod modes[] = {Mod::All, Mod::Any, Mod::Uni};
      di.vote = pick(inst, modes, VoteMode::Ballot);
      return true;
    }
    case Family::Match:
      di.op = XOp::Match;
      di.matchAll = inst.has(Mod::All);
      return true;
    case Family::Redux: {
      di.op = XOp::Redux;
      const Mod ops[] = {Mod::Add, Mod::Min, Mod::Max, Mod::And, Mod::Or, Mod::Xor};
      di.redux = pick(inst, ops, ReduxOp::Add);
      return true;
    }
    case Family::Activemask: di.op = XOp::Activemask; return true;
    case Family::Elect: di.op = XOp::Elect; return true;
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
