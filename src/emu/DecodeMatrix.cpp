// Decoding of the tensor-core instructions: ldmatrix, stmatrix, movmatrix, mma.sync, wmma and
// wgmma (Decoder.h).
#include "Decoder.h"

#include <algorithm>

namespace ptxopt::emu::decoding {

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

}  // namespace ptxopt::emu::decoding
