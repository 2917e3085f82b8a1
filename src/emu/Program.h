// The emulator's decoded form of a module: per function, a flat array of instructions with
// register slots, resolved symbols, branch targets and reconvergence points.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "FloatOps.h"
#include "Mma.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt::emu {

constexpr uint32_t kNoPc = UINT32_MAX;

// Windows of the generic address space (cvta adds or removes the window's base).
constexpr uint64_t kGlobalBase = 0x0001'0000'0000ull;  // global allocations start here
constexpr uint64_t kConstWindow = 0x1000'0000'0000ull;
constexpr uint64_t kSharedWindow = 0x2000'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x3000'0000'0000ull;
constexpr uint64_t kParamWindow = 0x4000'0000'0000ull;
constexpr uint64_t kCodeWindow = 0x5000'0000'0000ull;  // function addresses: window + 16 * index
constexpr uint64_t kWindowSize = 0x1000'0000'0000ull;

// Generic addressing: where each state space's window starts (global addresses are their own
// generic addresses), and the space whose window holds a generic address (global when none).
inline uint64_t windowBase(StateSpace s) {
  switch (s) {
    case StateSpace::Const: return kConstWindow;
    case StateSpace::Shared:
    case StateSpace::SharedCta:
    case StateSpace::SharedCluster: return kSharedWindow;
    case StateSpace::Local: return kLocalWindow;
    case StateSpace::Param:
    case StateSpace::ParamEntry: return kParamWindow;
    default: return 0;
  }
}
inline StateSpace windowOf(uint64_t addr) {
  for (StateSpace s : {StateSpace::Const, StateSpace::Shared, StateSpace::Local, StateSpace::Param})
    if (addr >= windowBase(s) && addr < windowBase(s) + kWindowSize) return s;
  return StateSpace::Global;
}

// The instruction families of the emulator (what `execute` dispatches on).
enum class XOp : uint16_t {
  Nop,
  Mov,          // d = a (any width); the address of a symbol (DInst::movSymbol)
  MovPack,      // mov.b64 d, {a, b} and friends: concatenate elements
  MovUnpack,    // mov.b64 {a, b}, d: split
  ReadClock,    // %clock, %clock64, %globaltimer
  IntArith,     // add sub mul mad div rem abs neg min max with lo/hi/wide and carries
  BitOp,        // and or xor not cnot popc clz bfind brev bfe bfi prmt lop3 shf shl shr bmsk szext
  Sad,
  Dp,           // dp4a / dp2a
  Video,        // SIMD video: vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4 (DInst::video)
  FloatArith,   // f32/f64 add sub mul fma mad div abs neg min max sqrt rsqrt rcp ex2 lg2 sin cos tanh copysign testp
  HalfArith,    // .f16 .f16x2 .bf16 .bf16x2
  Setp,
  Set,
  Selp,
  Slct,
  Cvt,
  Cvta,
  Isspacep,
  Ld,
  St,
  Atom,
  Bra,
  BrxIdx,
  Call,
  Ret,
  Exit,
  Trap,
  Barrier,      // bar / barrier: sync, arrive, red
  WarpSync,     // bar.warp.sync
  Shfl,
  Vote,
  Match,
  Redux,
  Activemask,
  CpAsync,        // cp.async.ca/.cg.shared.global: DInst::call indexes DFunction::asyncCopies
  CpAsyncCommit,  // cp.async.commit_group
  CpAsyncWait,    // cp.async.wait_group N (DInst::call = N), cp.async.wait_all (DInst::waitAll)
  Mbarrier,       // mbarrier.* and cp.async.mbarrier.arrive: DInst::mbar says which
  CpAsyncBulk,    // cp.async.bulk (global->shared with an mbarrier, shared->global in a bulk group):
                  // DInst::call indexes DFunction::bulkCopies
  CpAsyncBulkCommit,  // cp.async.bulk.commit_group
  CpAsyncBulkWait,    // cp.async.bulk.wait_group{.read} N (DInst::call = N)
  Elect,          // elect.sync
  Mapa,           // mapa: the address in CTA `rank` of the cluster (clusters have one CTA)
  Tex,          // tex.1d/2d/3d/a1d/a2d through a texture object handle
  Suld,         // suld.b / sust.b through a surface object handle
  Sust,
  TexQuery,     // txq / suq: an attribute of a texture or surface object (DInst::texQuery)
  TensormapReplace,  // tensormap.replace.tile: a field (DInst::tmapField) of the map at DInst's address
  TensormapCopy,     // tensormap.cp_fenceproxy: 128 bytes from shared (bulkCopies[call].src) to global
  // Tensor cores (docs/EMULATOR.md, "Tensor cores"): DInst::call indexes DFunction::matrixOps.
  Ldmatrix,     // ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.b16
  Stmatrix,     // stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.b16
  Movmatrix,    // movmatrix.sync.aligned.m8n8.trans.b16
  Mma,          // mma.sync.aligned
  WmmaLoad,     // wmma.load.{a,b,c}.sync.aligned
  WmmaStore,    // wmma.store.d.sync.aligned
  WmmaMma,      // wmma.mma.sync.aligned
  // Warpgroup MMA (sm_90a; Wgmma.cpp): DInst::call indexes DFunction::matrixOps (mma_async) or
  // is N (wait_group).
  WgmmaFence,   // wgmma.fence.sync.aligned
  WgmmaMma,     // wgmma.mma_async.sync.aligned
  WgmmaCommit,  // wgmma.commit_group.sync.aligned
  WgmmaWait,    // wgmma.wait_group.sync.aligned N
  Unsupported,
};

// The sub-operations of the families, typed (the decoder sets the one its family reads).
enum class ArithOp : uint8_t {
  Add, Sub, Mul, Mad, Div, Rem, Abs, Neg, Min, Max, Mul24, Mad24,
  Sqrt, Rsqrt, Rcp, Ex2, Lg2, Sin, Cos, Tanh, Copysign, Testp,
};
enum class BitOp : uint8_t { And, Or, Xor, Not, Cnot, Popc, Clz, Bfind, Brev, Bfe, Bfi, Prmt, Lop3, Shf, Shl, Shr, Bmsk, Szext };
enum class MinMaxNaN : uint8_t { Drop, Propagate };       // min/max .NaN
enum class TestKind : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class PrmtMode : uint8_t { Index, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
enum class BoolOp : uint8_t { None, And, Or, Xor };      // setp/set with a third predicate
enum class AtomOp : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max };
enum class BarrierKind : uint8_t { Sync, Arrive, Reduce };
enum class BarrierReduce : uint8_t { Popc, And, Or };
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class ReduxOp : uint8_t { Add, Min, Max, And, Or, Xor };
enum class VideoOp : uint8_t { Add, Sub, Avrg, Absdiff, Min, Max, Set };

// A SIMD video instruction: `lanes` elements (4 bytes or 2 half-words) of the pair (a, b),
// each position i reading element asel[i] (bsel[i]) of the 8 bytes or 4 half-words a:b (a
// low), extended by the signedness of its operand; the results are merged into c's elements
// at the positions of `mask` (the others keep c's) or, with .add, summed onto c.
struct DVideo {
  VideoOp op = VideoOp::Add;
  uint8_t lanes = 4;
  bool signedA = false, signedB = false, signedD = false;
  bool add = false;
  uint8_t mask = 0xF;
  uint8_t asel[4] = {0, 1, 2, 3};
  uint8_t bsel[4] = {4, 5, 6, 7};
};
// The mbarrier operations (docs/EMULATOR.md, "mbarrier"). CpAsyncArrive is
// cp.async.mbarrier.arrive{.noinc}.
constexpr uint32_t kMbarrierMaxCount = (1u << 20) - 1;  // the largest arrival count and |tx-count|
enum class MbarOp : uint8_t { Init, Arrive, ArriveDrop, ExpectTx, CompleteTx, TestWait, TryWait, PendingCount, Inval, CpAsyncArrive };

// Where a symbol lives, resolved when the program is decoded.
struct SymRef {
  enum class Kind : uint8_t {
    None,
    GlobalVar,    // index into Program::globals; address known per run
    ConstVar,     // const-space offset
    SharedVar,    // shared-space offset (dynamic extern shared: Program::dynamicSharedOffset)
    LocalVar,     // offset inside the current frame's local block
    KernelParam,  // offset inside the kernel's parameter buffer
    FrameParam,   // offset inside the current frame's per-lane .param area (call sequences)
    CalleeParam,  // a device function's own parameter: index (its bytes are in the caller)
    CalleeRetval, // a device function's return parameter: index
    Function,     // index into Program::functions
  } kind = Kind::None;
  uint32_t index = 0;
  uint64_t offset = 0;
};

struct DInst;
// A specialized loop that executes one decoded instruction on the lanes in `exec`, given the
// frame's register file (slot k of lane l at regs[32 * k + l]).
using FastFn = void (*)(const DInst& I, uint64_t* regs, uint32_t exec);

struct DInst {
  XOp op = XOp::Unsupported;
  // The loop that computes a data instruction (arithmetic, logic, comparison, conversion, mov)
  // on the executing lanes, from the per-lane semantics in Semantics.h: a specialization for
  // its exact form where one exists, and the general loop over the same semantics, which
  // `ptxrun --no-fast-paths` uses instead. Null for the other families.
  FastFn fast = nullptr;
  FastFn general = nullptr;
  ScalarType t = ScalarType::None;   // the instruction's (first) type
  ScalarType t2 = ScalarType::None;  // second type (cvt source, set/slct operand type)
  int32_t guard = -1;                // register slot
  bool guardNeg = false;
  bool uni = false;                  // bra.uni: the PTX asserts that a warp's lanes agree
  uint8_t ndst = 0, nsrc = 0;
  uint32_t dst[8] = {};
  uint32_t src[8] = {};
  uint8_t negMask = 0;               // source operands written with '!'
  // Sub-operations and modifiers, decoded.
  ArithOp arith = ArithOp::Add;
  BitOp bit = BitOp::And;
  CmpOp cmp = CmpOp::Eq;
  BoolOp boolOp = BoolOp::None;
  TestKind test = TestKind::Finite;
  PrmtMode prmt = PrmtMode::Index;
  AtomOp atom = AtomOp::Add;
  BarrierKind barrier = BarrierKind::Sync;
  BarrierReduce barrierReduce = BarrierReduce::Popc;
  ShflMode shfl = ShflMode::Idx;
  VoteMode vote = VoteMode::All;
  ReduxOp redux = ReduxOp::Add;
  MinMaxNaN nan = MinMaxNaN::Drop;
  SpecialReg clock = SpecialReg::Clock;  // ReadClock
  Rnd rnd = Rnd::Nearest;
  bool hasRounding = false;
  bool toIntegral = false;           // .rni/.rzi/.rmi/.rpi: round to an integral value
  bool ftz = false, sat = false, approx = false, wide = false, hi = false, relu = false;
  bool setsCarry = false, readsCarry = false;
  uint32_t carrySlot = 0;            // the frame's carry flag
  bool shiftLeft = false;            // shf.l
  bool clamp = false;                // shf/bmsk/szext .clamp (else .wrap)
  bool shiftAmount = false;          // bfind.shiftamt
  bool dpFour = false;               // dp4a (else dp2a)
  bool dpHigh = false;               // dp2a.hi
  DVideo video;                      // XOp::Video
  bool matchAll = false;             // match.all (else .any)
  bool aligned = false;              // barrier .aligned (bar is aligned)
  bool hasCount = false;             // barrier with a thread-count operand
  bool sync = false;                 // shfl.sync (a member mask)
  bool noResult = false;             // red: an atomic without a result
  bool symbolOperand = false;        // mov/cvta of a variable's address (addrSym, addrOffset)
  bool toSpace = false;              // cvta.to
  bool waitAll = false;              // cp.async.wait_all: commit, then wait for every group
  // mbarrier: the operation; its result is dst[0] when ndst is 1 (a state, waitComplete or a
  // pending count), its count, tx-count, state or phase-parity operand src[0] when nsrc >= 1.
  MbarOp mbar = MbarOp::Init;
  bool parity = false;               // test_wait/try_wait .parity
  bool expectTx = false;             // arrive{_drop}.expect_tx: src[0] is the tx-count, the arrival count is 1
  bool noinc = false;                // cp.async.mbarrier.arrive.noinc
  bool readOnly = false;             // cp.async.bulk.wait_group.read
  // tex: coordinates per texel (1-3), a layer index first (.a1d/.a2d), integer coordinates.
  uint8_t texDims = 0;
  bool texLayered = false;
  bool texIntCoords = false;
  bool texCube = false;              // tex.cube/.acube: texDims is 3 (a direction), the object a cubemap
  uint8_t texGather = 0;             // tld4: the component gathered, plus 1 (0: tex)
  uint8_t surfaceOob = 0;            // suld/sust out of range: 0 .trap, 1 .clamp, 2 .zero
  uint8_t texQuery = 0;              // txq/suq: a TexQuery; a .level form reads its level from src[1]
  bool texQuerySurface = false;      // suq (a surface object), not txq
  uint8_t tmapField = 0;             // tensormap.replace: a TensorMapField; its ord in `call`, the value in src[0]
  // Memory.
  bool strong = false;               // ld/st that is memory-model strong (Instruction::memoryStrength)
  StateSpace space = StateSpace::Generic;
  uint8_t vec = 1;
  uint8_t elemBytes = 0;             // bytes per element accessed (mov pack/unpack: per element)
  bool addrFromReg = false;
  uint32_t addrSlot = 0;
  SymRef addrSym;
  int64_t addrOffset = 0;
  // Control.
  uint32_t target = kNoPc;
  uint32_t rpc = kNoPc;              // reconvergence point of a branch (bra, brx.idx)
  std::vector<uint32_t> targets;     // brx.idx
  uint32_t call = 0;                 // index into DFunction::calls; Unsupported: into Program::unsupported;
                                     // CpAsync: into DFunction::asyncCopies; CpAsyncWait: N;
                                     // the tensor-core XOps: into DFunction::matrixOps
                                     // CpAsyncBulk: into DFunction::bulkCopies; CpAsyncBulkWait: N
  // For messages and metrics.
  uint32_t line = 0;
  const Instruction* ir = nullptr;
};

struct DCall {
  bool builtinPrintf = false;        // vprintf
  bool builtinAssert = false;        // __assertfail
  int32_t callee = -1;               // direct: index into Program::functions
  bool indirect = false;
  uint32_t targetSlot = 0;           // register holding the function address
  std::vector<uint64_t> argOffsets;  // caller frame .param offsets of the arguments
  std::vector<uint64_t> retOffsets;  // caller frame .param offsets of the results
};

// An address operand `[reg+off]`, `[var+off]` or `[imm]`, decoded.
struct DAddress {
  bool fromReg = false;
  uint32_t slot = 0;   // the register, when fromReg
  SymRef sym;          // the variable, when named (Kind::None: `[imm]` or a register)
  int64_t offset = 0;
};

// The operands of a cp.async (non-bulk): the destination is DInst's address (shared space),
// the source is `src` (global space).
struct DAsyncCopy {
  DAddress src;
  uint8_t cpSize = 16;  // 4, 8 or 16 bytes land at the destination
  // src-size (a u32 register or constant: bytes read from the source, the rest zero) or
  // ignore-src (a predicate: when true, nothing is read and zeros land).
  enum class Fill : uint8_t { None, SrcSize, IgnoreSrc } fill = Fill::None;
  uint32_t fillSlot = 0;
  bool fillNegated = false;  // `!%p` as ignore-src
};

// The operands of a tensor-core instruction (XOp::Ldmatrix to XOp::WmmaMma): register slots of
// each fragment in operand order, the multiply-accumulate's shape and types, and for the matrix
// loads and stores the address (DInst's) and its form.
struct DMatrixOp {
  MmaForm form;                 // mma, wmma: shape and types
  std::vector<uint32_t> d, a, b, c;  // mma/wmma.mma: D, A, B, C; ldmatrix/wmma.load: d; stmatrix/wmma.store, movmatrix: a (the data)
  uint8_t matrices = 1;         // ldmatrix/stmatrix: .x1, .x2, .x4
  bool trans = false;           // ldmatrix/stmatrix .trans
  MatrixRole role = MatrixRole::C;  // wmma.load: a, b or c; wmma.store: c (d)
  MmaType elem = MmaType::None;     // wmma.load/store: the element type in memory
  bool colMajor = false;        // wmma.load/store: .col (else .row)
  bool hasStride = false;       // wmma.load/store: a stride operand (elements; else the matrix's width)
  uint32_t strideSlot = 0;
  // wgmma.mma_async: A from registers (op.a) or a descriptor; B's descriptor; scale-d (a
  // constant or a predicate); imm-scale-a/b -1 (negate); imm-trans-a/b 1 (MN-major).
  bool aInRegs = false;
  uint32_t descASlot = 0, descBSlot = 0;
  bool scaleDConst = true, scaleD = true;
  uint32_t scaleDSlot = 0;
  bool scaleDNegated = false;  // `!%p`
  bool negA = false, negB = false, transA = false, transB = false;
};

// The operands of a cp.async.bulk: the destination is DInst's address, the size src[0] (a tensor
// copy's coordinates src[0..rank-1]).
// Global to shared memory completes tx bytes on the mbarrier at `mbar`; shared to global memory
// belongs to the thread's bulk groups.
struct DBulkCopy {
  DAddress src;
  DAddress mbar;
  bool toGlobal = false;     // cp.async.bulk.global.shared::cta.bulk_group
  bool fromShared = false;   // cp.async.bulk.shared::cluster.shared::cta (a copy inside the CTA)
  // cp.async.bulk.tensor.{1..5}d...tile: the box at the coordinates src[0..rank-1] of the tensor
  // map at `tensorMap` (a register or a parameter's name); `src` is not used.
  uint8_t tensorRank = 0;
  DAddress tensorMap;
  // cp.reduce.async.bulk (into global memory): each element of the destination becomes
  // `reduce` of it and the source's, of DInst::t.
  bool reduction = false;
  AtomOp reduce = AtomOp::Add;
};

struct DFunction {
  const Function* ir = nullptr;
  std::string name;
  std::vector<DInst> code;
  uint32_t numRegs = 0;         // IR registers
  uint32_t numSlots = 0;        // registers + constants + special registers
  std::vector<uint64_t> constValues;    // slots numRegs .. numRegs+constValues.size()
  struct SpecialSlot {
    SpecialReg reg;
    Component comp;
    uint32_t number;
    uint32_t slot;
  };
  std::vector<SpecialSlot> specials;
  uint64_t localBytes = 0;      // .local declarations of one activation
  uint64_t paramBytes = 0;      // .param declarations in the body, per lane
  std::vector<uint64_t> paramOffsets;  // of the function's own parameters (kernel buffer or caller)
  std::vector<uint64_t> paramSizes;
  std::vector<uint64_t> paramAligns;   // each parameter's natural alignment (a kernel's: in its parameter block)
  std::vector<uint64_t> retSizes;
  std::vector<DCall> calls;
  std::vector<DAsyncCopy> asyncCopies;
  std::vector<DMatrixOp> matrixOps;
  std::vector<DBulkCopy> bulkCopies;
};

struct DGlobal {
  const Variable* var = nullptr;
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1;
  bool managed = false;  // `.attribute(.managed)`: a __managed__ variable, which the host reaches too
};

// A .const variable: its place in the constant image.
struct DConst {
  const Variable* var = nullptr;
  std::string name;  // module-level: its own name; inside a function: "function.name"
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct Program {
  const Module* module = nullptr;
  std::vector<DFunction> functions;  // same order as the module's functions with a body
  std::unordered_map<std::string, uint32_t> functionIndex;
  std::vector<DGlobal> globals;
  std::vector<DConst> consts;        // in constImage order
  std::vector<uint8_t> constImage;   // initialized .const memory (numbers; addresses are written per run)
  uint64_t staticSharedBytes = 0;
  uint64_t dynamicSharedOffset = 0;  // where `.extern .shared` arrays start
  std::string fileName;
  // Instructions the emulator cannot run (they fault if executed), in module order.
  struct Unsupported {
    uint32_t line = 0;
    std::string function, text, why;
    bool invalid = false;  // not valid PTX (a cp.async with a cp-size the ISA does not allow): ptxas rejects it too
  };
  std::vector<Unsupported> unsupported;
};

// Decodes every function. On failure returns false with `error`.
bool decodeProgram(const Module& m, Program& p, std::string& error);

}  // namespace ptxopt::emu
