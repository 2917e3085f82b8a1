#pragma once
// The generator's state: registers and their scopes, the uniformity model, the emission
// buffer of the function being written, and the statement emitters (one member function per
// shape, defined in the file of its concern: Expressions.cpp, ControlFlow.cpp, Switches.cpp,
// Memory.cpp, Warp.cpp, Functions.cpp; Generator.cpp drives them).
//
// Safety model (what makes every kernel race-free, fault-free and schedule-independent):
//  * Uniformity. Every value has a level: Const, Cta (the same in every thread of the CTA),
//    Warp (the same in every lane of a warp), Div (anything). Control flow has a level too:
//    the least uniform condition that decided whether a thread is here. A register has a class
//    (the level it was created with) and may be written only when neither the written value
//    nor the flow is less uniform than that class; so a Cta register holds a Cta value
//    wherever it is read. Barriers need Cta flow, full-mask warp collectives Warp flow.
//  * Definedness. A fresh register is visible only in the scope that defined it (the arm of
//    an if, the body of a loop, the case of a switch), so it is never read on a path that did
//    not write it; guarded instructions only write registers that are already defined.
//  * Memory. Inputs are read-only; each thread writes only its own slots of `out`, of the
//    shared exchange rows, of `scr` and of its local array; exchanges between threads go
//    through a write, a barrier, a read and a barrier; atomics are integer and
//    order-independent, and their old values are used only on the thread's own slots.
//  * Termination. Loops count with registers nobody else writes and trip counts bounded by
//    construction; the product of nested trip counts is bounded too.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "Random.h"
#include "ptxopt/fuzz/Generator.h"

namespace ptxopt::fuzz {

enum class Kind : uint8_t { Pred, B16, B32, B64, F32, F64 };
constexpr int kKinds = 6;
enum class Uni : uint8_t { Const, Cta, Warp, Div };
inline Uni worst(Uni a, Uni b) { return a > b ? a : b; }

struct Value {
  std::string text;  // "%r5", "42", "0f3F800000"; empty when absent
  Kind kind = Kind::B32;
  Uni uni = Uni::Div;
  bool imm = false;
  int64_t immValue = 0;  // immediates of integer kinds
  explicit operator bool() const { return !text.empty(); }
};

// A register visible in a scope; `assignable` is false for the environment (tid, pointers)
// and for loop counters and trip counts.
struct Slot {
  Value v;
  bool assignable = true;
};

struct LoopInfo {
  std::string contLabel, exitLabel;
  Uni breakUni = Uni::Const;  // the least uniform break/continue condition allowed
};

// Where the statement being generated sits.
struct Ctx {
  Uni flow = Uni::Cta;
  unsigned ifDepth = 0;
  unsigned loopDepth = 0;
  uint64_t mult = 1;                // times this code runs per thread, at most
  const LoopInfo* loop = nullptr;   // innermost loop with break/continue labels
  bool noExit = false;              // in a loop, an irreducible region or a callee
};

// Registers that every function gets in its prologue.
struct Env {
  Value tid, lane, warp, gtid, cta, ntid, ctaBase;  // b32
  Value outp;                                       // b64: this thread's out slots
  Value inI, inF, inD, acc, acc64, scr;             // b64 buffer bases (global)
  Value localBase;                                  // b64: the function's local array
  Value shRow;                                      // b32 shared address of this thread's exchange row
};

struct Callee {
  std::string name;
  std::vector<Kind> params;  // after the two pointer parameters (outp, inI)
  bool hasReturn = false;
  Kind ret = Kind::B32;
  bool barriers = false;  // contains CTA barriers: call only where barriers are allowed
  uint64_t cost = 0;      // dynamic instructions of one call, roughly
};

struct Function {
  bool kernel = true;
  std::string name;
  unsigned regs[kKinds] = {};  // highest register number used per kind
  std::vector<std::vector<Slot>> scopes;
  std::vector<std::string> lines;  // body text
  unsigned instructions = 0;
  uint64_t dynamic = 0;  // estimated dynamic instructions per thread
  Env env;
  bool allowBarriers = true;  // kernel, or a callee called only where barriers are allowed
  bool lanesMissing = false;    // some lanes of a warp may have exited
  bool threadsMissing = false;  // whole warps may have exited
  std::string exitLabel;        // shared `ret` block at the end, when used
  // switchHeavy: cases of uniform switches that leave the kernel jump to this block after the
  // epilogue, which stores `caseExitValue` to the first scratch slot and returns.
  std::string caseExitLabel;
  Value caseExitValue;
  std::vector<Value> sinks;     // registers whose final values reach the output
  bool usesLocal = false;
  // Registers whose value a lop3 computed, directly or through other instructions (emit keeps
  // it; see avoidPtxasHang in Builder.cpp).
  std::set<std::string> lop3Derived;
};

// Budgets that the size class sets.
struct Limits {
  unsigned budget = 40;       // static instructions of the kernel body
  uint64_t maxMult = 64;      // product of nested trip counts
  uint64_t maxDynamic = 20000;  // estimated dynamic instructions per thread
};

class Gen {
 public:
  Gen(uint64_t seed, const GeneratorOptions& options);
  GeneratedKernel run();

  // ---- Builder.cpp: registers, scopes, emission --------------------------------------------
  Value newReg(Kind k, Uni u);
  void define(const Value& v, bool assignable = true);
  void pushScope() { fn_->scopes.emplace_back(); }
  void popScope() { fn_->scopes.pop_back(); }
  void emit(const std::string& text);  // one instruction; the ';' is added
  std::string avoidPtxasHang(const std::string& text);
  void emitRaw(const std::string& text);
  void label(const std::string& name);
  std::string newLabel(const char* hint);
  void shape(const std::string& name) { ++shapes_[name]; }
  // Reads: a register (or, when allowed, an immediate) of kind k no less uniform than maxU.
  Value pick(Kind k, Uni maxU, bool allowImm = true);
  Value pickReg(Kind k, Uni maxU) { return pick(k, maxU, false); }
  Value imm(Kind k);
  Value immInt(Kind k, int64_t v);
  // Writes: a register of kind k that may receive a value of level u here; fresh or existing.
  Value dest(Kind k, Uni u, const Ctx& c, unsigned reusePercent = 35);
  // An existing register that may be overwritten (guarded writes); empty if there is none.
  Value existingDest(Kind k, Uni u, const Ctx& c);
  Uni randomLevel(const Ctx& c);
  bool barriersOk(const Ctx& c) const;
  bool warpFull(const Ctx& c) const;
  uint64_t dynamicLeft(const Ctx& c) const;
  static const char* regPrefix(Kind k);
  static const char* regType(Kind k);

  // ---- Expressions.cpp: straight-line code ------------------------------------------------
  void genArith(const Ctx& c);
  Value genPred(const Ctx& c, Uni maxU);
  void genMultiResult(const Ctx& c, Uni maxU);
  void genGuarded(const Ctx& c);
  void genSelect(const Ctx& c);
  // A predicate of level exactly `want` where possible (Div: includes a divergent input).
  Value genCond(const Ctx& c, Uni want);
  // A b32 value in [0, n) (n > 0) of level at most maxU.
  Value genIndex(const Ctx& c, Uni maxU, unsigned n, bool wantDivergent);
  Value materialize(const Value& v);  // an immediate moved into a fresh register
  // Makes what a scope computed observable: folds some of its registers into the long-lived
  // variables (stored at the end) or stores them to the thread's scratch out slots.
  void foldScope(const Ctx& c);
  // An operation chosen but not yet emitted: mnemonic with modifiers, result kind, inputs.
  struct Op {
    std::string text;
    Kind kind = Kind::B32;
    std::vector<Value> ins;
  };
  Op opInt32(Uni maxU);
  Op opInt64(Uni maxU);
  Op opInt16(Uni maxU);
  Op opF32(Uni maxU);
  Op opF64(Uni maxU);
  Op opHalf(Uni maxU);
  Op opConvert(Uni maxU);
  // Emits `op` into a destination fit for its level (an existing register only when guarded);
  // returns the destination.
  Value emitOp(const Ctx& c, const Op& op, const Value* guard = nullptr, bool negate = false);
  Value pickExact(Kind k, Uni u);  // a register of exactly level u if there is one
  Value safeDivisor(Kind k, Uni maxU);

  // ---- ControlFlow.cpp: conditionals, loops, unstructured shapes ---------------------------
  void genSeq(const Ctx& c, unsigned budget);
  void genStmt(const Ctx& c, unsigned budget);
  void genIf(const Ctx& c, unsigned budget);
  void genCondChain(const Ctx& c, unsigned budget);
  void genMeldPair(const Ctx& c, unsigned budget);
  void genLoop(const Ctx& c, unsigned budget);
  void genBreakContinue(const Ctx& c);
  void genGotoTail(const Ctx& c, unsigned budget);
  void genJumpIntoElse(const Ctx& c, unsigned budget);
  void genIrreducible(const Ctx& c, unsigned budget);
  void genEarlyExit(const Ctx& c);
  void branch(const Value& pred, bool negate, const std::string& target);
  void jump(const std::string& target);
  Uni condLevel(const Ctx& c);
  Uni drawConditionLevels(const Ctx& c, unsigned n, std::vector<Uni>& wants);

  // ---- Switches.cpp -------------------------------------------------------------------------
  void genSwitch(const Ctx& c, unsigned budget);

  // ---- Memory.cpp ---------------------------------------------------------------------------
  void genLoad(const Ctx& c);
  void genStoreOut(const Ctx& c);
  void genLocal(const Ctx& c);
  void genAtomic(const Ctx& c);
  void genOwnShared(const Ctx& c);
  void genExchange(const Ctx& c);      // CTA-wide exchange through shared or global memory
  void readSharedRow(const Value& thread, unsigned w, const Ctx& c);  // word w of thread's shared row
  void genSplitExchange(const Ctx& c);  // CTA-wide exchange, first barrier split over a warp-level branch
  void genAsyncExchange(const Ctx& c);  // CTA-wide exchange whose rows cp.async fills
  Value partnerThread();                // a thread of the CTA to exchange with (exchanges)
  void genWarpExchange(const Ctx& c);  // warp-wide exchange through shared + bar.warp.sync
  void genSplitCollective(const Ctx& c);
  void emitSplitSync(const Value& p, unsigned w, unsigned storePercent, const std::string& sync, const char* hint);
  void genAccSnapshot(const Ctx& c);   // read the shared accumulators between two barriers
  Value address(const Value& base, const Value& index, unsigned scale);  // base + index*scale

  // ---- Warp.cpp -----------------------------------------------------------------------------
  void genWarpOp(const Ctx& c);
  void genBarrier(const Ctx& c);
  void genBarRed(const Ctx& c);
  void genFence(const Ctx& c);
  void barrier();  // a plain CTA barrier, in one of its spellings
  Value warpMask(const Ctx& c);
  Value collectiveDest(Kind k, Uni u, bool full, const Ctx& c, unsigned reusePercent = 35);

  // ---- Functions.cpp ------------------------------------------------------------------------
  void genCallees();
  void genCall(const Ctx& c);

  // ---- Generator.cpp ------------------------------------------------------------------------
  void kernelPrologue();
  void kernelEpilogue();
  std::string functionText(const Function& f, const std::string& header);
  std::string specText() const;

  // State, public to the emitters in the other files.
  Random rng;
  GeneratorOptions opts;
  uint64_t seed;
  KernelSize size = KernelSize::Small;
  Limits lim;
  std::map<std::string, unsigned> shapes_;
  uint64_t mult_ = 1;  // trip-count product of the statement being emitted
  Function* fn_ = nullptr;
  std::vector<Callee> callees;
  unsigned labels = 0;
  // Launch shape.
  unsigned blockX = 64, blockY = 1, grid = 1;
  unsigned threads() const { return blockX * blockY; }
  // Module-level resources.
  unsigned inCount = 1024;       // inI elements (b32), power of two
  unsigned inFCount = 256;       // inF (f32) and inD (f64) elements, power of two
  static constexpr unsigned kSlots = 32;   // out slots (8 bytes) per thread
  static constexpr unsigned kVarSlots = 16;
  static constexpr unsigned kScratchSlots = 12;  // slots 16..27 for statement stores
  static constexpr unsigned kAccSlot = 28;       // slots 28..31: shared accumulator snapshot
  static constexpr unsigned kRowWords = 4;       // words per thread in the exchange rows
  static constexpr unsigned kShAcc = 8;          // shared accumulator words
  static constexpr unsigned kLocalWords = 16;
  static constexpr unsigned kAccWords = 64;      // global accumulators (b32)
  static constexpr unsigned kAcc64Words = 16;    // global accumulators (b64)
  unsigned constWords = 16;
  std::vector<uint32_t> constTable;
  std::vector<uint64_t> constTable64;
  std::vector<uint32_t> globalTable;
  bool usesShAcc = false;
  bool usesDynShared = false;
  bool usesWarpSz = false;
  bool warpSzKernel = false;  // this kernel may read WARP_SZ (a fifth of them, with the option on)
  unsigned dynRowWords = 2;  // words per thread in the dynamic shared rows
  std::vector<Value> vars;  // the kernel's long-lived variables, in out-slot order
  std::vector<std::string> calleeTexts;
  unsigned instructionTotal = 0;
  bool maxntid = false, reqntid = false;
  bool lean = false;        // a small kernel with a minimal prologue
  unsigned exitAfter = 0;   // kernel exits only after this many instructions
  std::string version = "8.0";
  // Scalar parameters of the kernel.
  int32_t paramN = 0;
  uint32_t paramMask = 0;
  float paramF = 0;
  uint64_t paramL = 0;
  unsigned inISeed = 0, inFSeed = 0, inDSeed = 0;
  int inIMin = 0, inIMax = 0;
};

std::string hex32(uint32_t v);
std::string f32Imm(float f);
std::string f64Imm(double d);

}  // namespace ptxopt::fuzz
