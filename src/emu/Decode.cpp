// Turns the IR of a module into the emulator's flat, pre-resolved form (Decoder.h): the
// function walk, operands, arithmetic, memory and control flow; asynchronous copies,
// textures and tensor cores are decoded in their own files.
#include <algorithm>
#include <cstring>

#include "Decoder.h"
#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/Dominators.h"
#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt::emu {

namespace decoding {

namespace {

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

}  // namespace

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
    set(Opcode::Txq, Family::Texture), set(Opcode::Suq, Family::Surface);
    auto video = [&](Opcode op, VideoOp v) { set(op, Family::Video, static_cast<uint8_t>(v)); };
    video(Opcode::Vadd2, VideoOp::Add), video(Opcode::Vadd4, VideoOp::Add), video(Opcode::Vsub2, VideoOp::Sub);
    video(Opcode::Vsub4, VideoOp::Sub), video(Opcode::Vavrg2, VideoOp::Avrg), video(Opcode::Vavrg4, VideoOp::Avrg);
    video(Opcode::Vabsdiff2, VideoOp::Absdiff), video(Opcode::Vabsdiff4, VideoOp::Absdiff);
    video(Opcode::Vmin2, VideoOp::Min), video(Opcode::Vmin4, VideoOp::Min), video(Opcode::Vmax2, VideoOp::Max);
    video(Opcode::Vmax4, VideoOp::Max), video(Opcode::Vset2, VideoOp::Set), video(Opcode::Vset4, VideoOp::Set);
    for (Opcode op : {Opcode::Ldmatrix, Opcode::Stmatrix, Opcode::Movmatrix, Opcode::Mma, Opcode::Wmma})
      set(op, Family::Matrix);
    set(Opcode::ElectSync, Family::Elect), set(Opcode::Mapa, Family::Mapa), set(Opcode::Tensormap, Family::TensorMap);
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
  if (d.family == Family::TensorMap) return decodeTensormap(f, inst, di);
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


}  // namespace decoding

using decoding::Decoder;


bool decodeProgram(const Module& m, Program& p, std::string& error) {
  Decoder d(m, p);
  return d.run(error);
}

// Used by the run to write initialized .global variables (numbers only; addresses are
// patched by the caller).
void writeVariableInitializer(const Variable& v, uint8_t* out, uint64_t size) { Decoder::writeInitializer(v, out, size); }

}  // namespace ptxopt::emu
