// The loops that run a data instruction (arithmetic, logic, comparison, conversion, mov) on
// the executing lanes of a warp. Every loop computes each lane with the semantics of
// Semantics.h; there are two kinds:
//   * general loops read the instruction's form (type, width, modifiers) at run time;
//   * specialized loops are instantiated for the forms that dominate real kernels (integer add,
//     sub, mul, mad, logic, shifts and compares, mov, selp, integer cvt, round-to-nearest f32/f64
//     add, sub, mul and fma): the same semantics with the form as constants, so a full warp runs
//     as a straight loop the compiler can vectorize.
// `ptxrun --no-fast-paths` runs the general loops only; tests/lit/ptxrun/fast-paths.test checks
// that both kinds agree bit for bit.
//
// Compiled with -ffp-contract=off: a multiply and an add stay two roundings.
#include "Kernels.h"

#include "Semantics.h"

namespace ptxopt::emu {

namespace {

using Fn = FastFn;

inline uint64_t* slot(uint64_t* R, uint32_t s) { return R + static_cast<size_t>(s) * 32; }
// A source slot, or the first one where the instruction has fewer (never read then).
inline const uint64_t* src(const DInst& I, uint64_t* R, unsigned k) { return slot(R, I.src[k < I.nsrc ? k : 0]); }

template <typename F>
[[gnu::always_inline]] inline void forExec(uint32_t exec, F&& f) {
  for (; exec; exec &= exec - 1) f(__builtin_ctz(exec));
}

// ---- general loops ------------------------------------------------------------------------------

IntMods intMods(const DInst& I) { return IntMods{I.sat, I.hi, I.wide, I.readsCarry, I.setsCarry}; }
FloatMods floatMods(const DInst& I) { return FloatMods{I.rnd, I.hasRounding, I.ftz, I.sat, I.relu, I.approx, I.nan}; }
CvtMods cvtMods(const DInst& I) { return CvtMods{I.rnd, I.ftz, I.sat, I.relu, I.toIntegral}; }

void intArithGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const unsigned bits = typeBits(I.t);
  const bool sg = isSignedType(I.t);
  const IntMods m = intMods(I);
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  uint64_t* carry = slot(R, I.carrySlot);
  const bool usesCarry = m.readsCarry || m.setsCarry;
  forExec(exec, [&](int l) { d[l] = intArithLane(I.arith, bits, sg, m, a[l], b[l], c[l], usesCarry ? &carry[l] : nullptr); });
}

void bitOpGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const unsigned bits = I.t == ScalarType::Pred ? 1 : typeBits(I.t);
  const bool sg = isSignedType(I.t);
  const BitMods m{I.negMask, I.prmt, I.shiftLeft, I.clamp, I.shiftAmount};
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2), *e = src(I, R, 3);
  forExec(exec, [&](int l) { d[l] = bitLane(I.bit, bits, sg, m, a[l], b[l], c[l], e[l]); });
}

void sadGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const unsigned bits = typeBits(I.t);
  const bool sg = isSignedType(I.t);
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  forExec(exec, [&](int l) { d[l] = sadLane(bits, sg, a[l], b[l], c[l]); });
}

void dpGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const bool sa = isSignedType(I.t), sb = isSignedType(I.t2 == ScalarType::None ? I.t : I.t2);
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  forExec(exec, [&](int l) { d[l] = dpLane(I.dpFour, I.dpHigh, sa, sb, a[l], b[l], c[l]); });
}

void videoGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  forExec(exec, [&](int l) { d[l] = videoLane(I.video, I.cmp, I.sat, a[l], b[l], c[l]); });
}

template <typename F>
void floatFormatGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const FloatMods m = floatMods(I);
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  forExec(exec, [&](int l) { d[l] = floatLane<F>(I.arith, m, a[l], b[l], c[l]); });
}

void testpGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t* a = src(I, R, 0);
  forExec(exec, [&](int l) { d[l] = testLane(I.test, I.t, a[l]); });
}

// f16/bf16, one or two halves.
template <bool BF>
void halfGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const FloatMods m = floatMods(I);
  const int halves = (I.t == ScalarType::F16x2 || I.t == ScalarType::BF16x2) ? 2 : 1;
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  forExec(exec, [&](int l) {
    uint64_t out = 0;
    for (int h = 0; h < halves; ++h)
      out |= floatLane<HalfFormat<BF>>(I.arith, m, (a[l] >> (16 * h)) & 0xFFFF, (b[l] >> (16 * h)) & 0xFFFF,
                                       (c[l] >> (16 * h)) & 0xFFFF)
             << (16 * h);
    d[l] = out;
  });
}

// setp (p, or p|q with q the complement before the boolean operation) and set.
void compareGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1);
  const uint64_t* c = I.nsrc > 2 ? slot(R, I.src[2]) : nullptr;
  const bool negC = (I.negMask >> 2) & 1;
  auto combine = [&](bool v, int l) { return c ? combineLane(I.boolOp, v, (c[l] & 1) != negC) : v; };
  uint64_t* p = slot(R, I.dst[0]);
  if (I.op == XOp::Set) {
    const ScalarType dt = I.t2;
    forExec(exec, [&](int l) {
      bool v = combine(compareLane(I.cmp, I.t, I.ftz, a[l], b[l], 0), l);
      p[l] = v ? (dt == ScalarType::F32 ? floatBits(1.0f) : widthMask(typeBits(dt))) : 0;
    });
    return;
  }
  uint64_t* q = I.ndst > 1 ? slot(R, I.dst[1]) : nullptr;
  if (I.t == ScalarType::F16x2 || I.t == ScalarType::BF16x2) {
    // setp.f16x2 p|q: p for the low halves, q for the high halves.
    forExec(exec, [&](int l) {
      p[l] = combine(compareLane(I.cmp, I.t, I.ftz, a[l], b[l], 0), l);
      if (q) q[l] = combine(compareLane(I.cmp, I.t, I.ftz, a[l], b[l], 1), l);
    });
    return;
  }
  forExec(exec, [&](int l) {
    bool v = compareLane(I.cmp, I.t, I.ftz, a[l], b[l], 0);
    p[l] = combine(v, l);
    if (q) q[l] = combine(!v, l);
  });
}

void selpGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  const bool negC = (I.negMask >> 2) & 1;
  forExec(exec, [&](int l) { d[l] = selpLane(negC, a[l], b[l], c[l]); });
}

void slctGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1), *c = src(I, R, 2);
  forExec(exec, [&](int l) {
    bool pick = I.t2 == ScalarType::F32 ? !(bitsFloat(static_cast<uint32_t>(c[l])) < 0.0f) : signExtend(c[l], 32) >= 0;
    d[l] = pick ? a[l] : b[l];
  });
}

unsigned movBits(const DInst& I) { return I.t == ScalarType::Pred ? 64 : std::max(8u, typeBits(I.t)); }

void movGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t* a = src(I, R, 0);
  const unsigned bits = movBits(I);
  const bool negate = I.negMask & 1;
  forExec(exec, [&](int l) { d[l] = movLane(bits, negate, a[l]); });
}

void movPackGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const unsigned eb = I.elemBytes * 8u;
  forExec(exec, [&](int l) {
    uint64_t v = 0;
    for (unsigned k = 0; k < I.nsrc; ++k) v |= (slot(R, I.src[k])[l] & widthMask(eb)) << (k * eb);
    d[l] = v;
  });
}

void movUnpackGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const uint64_t* a = src(I, R, 0);
  const unsigned eb = I.elemBytes * 8u;
  forExec(exec, [&](int l) {
    uint64_t v = a[l];
    for (unsigned k = 0; k < I.ndst; ++k) slot(R, I.dst[k])[l] = (v >> (k * eb)) & widthMask(eb);
  });
}

void cvtGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  const CvtMods m = cvtMods(I);
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = src(I, R, 0), *b = src(I, R, 1);
  if ((I.t == ScalarType::F16x2 || I.t == ScalarType::BF16x2) && I.nsrc == 2) {
    forExec(exec, [&](int l) { d[l] = cvtPackedLane(I.t, I.t2, m, a[l], b[l]); });
    return;
  }
  forExec(exec, [&](int l) { d[l] = cvtLane(I.t, I.t2, m, a[l]); });
}

// cvta of a register: the generic address is the space's window plus the address (.to: minus).
void cvtaGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t* a = src(I, R, 0);
  const uint64_t window = windowBase(I.space);
  const uint64_t m = typeBits(I.t) == 32 ? 0xFFFFFFFFu : ~uint64_t(0);
  forExec(exec, [&](int l) { d[l] = (I.toSpace ? a[l] - window : a[l] + window) & m; });
}

void isspacepGeneral(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t* a = src(I, R, 0);
  forExec(exec, [&](int l) {
    uint64_t v = a[l];
    // Global: below the first window and not in the null page the allocations start above.
    d[l] = I.space == StateSpace::Global ? v >= kGlobalBase && v < kConstWindow
                                         : windowBase(I.space) && windowOf(v) == windowOf(windowBase(I.space));
  });
}

// ---- specialized loops ---------------------------------------------------------------------------

// d = L::f(a, b, c) on the executing lanes.
template <typename L>
void loop(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t* a = slot(R, I.src[0]);
  const uint64_t* b = slot(R, L::kArity > 1 ? I.src[1] : I.src[0]);
  const uint64_t* c = slot(R, L::kArity > 2 ? I.src[2] : I.src[0]);
  if (exec == 0xFFFFFFFFu) {
    // Results go to a buffer first: d may be one of the sources.
    uint64_t out[32];
    for (int l = 0; l < 32; ++l) out[l] = L::f(a[l], b[l], c[l]);
    for (int l = 0; l < 32; ++l) d[l] = out[l];
    return;
  }
  forExec(exec, [&](int l) { d[l] = L::f(a[l], b[l], c[l]); });
}

template <ArithOp Op, unsigned B, bool S, bool Wide = false>
struct IntL {
  static constexpr int kArity = Op == ArithOp::Mad ? 3 : 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return intArithLane(Op, B, S, IntMods{false, false, Wide}, a, b, c, nullptr); }
};
template <BitOp Op, unsigned B, bool S>
struct BitL {
  static constexpr int kArity = Op == BitOp::Not ? 1 : 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return bitLane(Op, B, S, BitMods{}, a, b, c, 0); }
};
template <unsigned B>
struct MovL {
  static constexpr int kArity = 1;
  static uint64_t f(uint64_t a, uint64_t, uint64_t) { return movLane(B, false, a); }
};
struct SelpL {
  static constexpr int kArity = 3;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return selpLane(false, a, b, c); }
};
template <ScalarType D, ScalarType S>
struct CvtL {
  static constexpr int kArity = 1;
  static uint64_t f(uint64_t a, uint64_t, uint64_t) { return cvtLane(D, S, CvtMods{}, a); }
};
template <CmpOp Op, ScalarType T>
struct SetpL {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return compareLane(Op, T, false, a, b, 0); }
};
template <ArithOp Op, typename F>
struct FloatL {
  static constexpr int kArity = Op == ArithOp::Mad ? 3 : 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return floatLane<F>(Op, FloatMods{}, a, b, c); }
};

// fma with the host's fused instruction where the CPU has one (a call into libm otherwise):
// the loop is compiled twice, once for FMA-capable CPUs, and chosen once at run time (no ifunc:
// sanitizer runtimes cannot run resolvers that early). Every lane is computed (inactive lanes'
// registers are plain numbers) and only the executing ones are written.
template <typename F>
[[gnu::always_inline]] inline void fmaBody(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = slot(R, I.dst[0]);
  const uint64_t *a = slot(R, I.src[0]), *b = slot(R, I.src[1]), *c = slot(R, I.src[2]);
  uint64_t out[32];
  for (int l = 0; l < 32; ++l) out[l] = FloatL<ArithOp::Mad, F>::f(a[l], b[l], c[l]);
  forExec(exec, [&](int l) { d[l] = out[l]; });
}
void fmaF32Loop(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<F32Format>(I, R, exec); }
void fmaF64Loop(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<F64Format>(I, R, exec); }
#if defined(__x86_64__)
__attribute__((target("fma"))) void fmaF32LoopFma(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<F32Format>(I, R, exec); }
__attribute__((target("fma"))) void fmaF64LoopFma(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<F64Format>(I, R, exec); }
Fn fmaLoop(bool f32) {
  if (hostHasFma()) return f32 ? &fmaF32LoopFma : &fmaF64LoopFma;
  return f32 ? &fmaF32Loop : &fmaF64Loop;
}
#else
Fn fmaLoop(bool f32) { return f32 ? &fmaF32Loop : &fmaF64Loop; }
#endif

// ---- choosing the specialized loop ---------------------------------------------------------------

template <template <unsigned, bool> class Op>
Fn byWidth(unsigned bits, bool sg) {
  switch (bits) {
    case 16: return sg ? &loop<Op<16, true>> : &loop<Op<16, false>>;
    case 32: return sg ? &loop<Op<32, true>> : &loop<Op<32, false>>;
    case 64: return sg ? &loop<Op<64, true>> : &loop<Op<64, false>>;
    default: return nullptr;
  }
}
template <ArithOp A> struct IntOf { template <unsigned B, bool S> using L = IntL<A, B, S>; };
template <BitOp A> struct BitOf { template <unsigned B, bool S> using L = BitL<A, B, S>; };
template <unsigned B, bool> using MovOf = MovL<B>;

template <CmpOp Op>
Fn setpIntFor(bool sg, unsigned bits) {
  if (bits == 32) return sg ? &loop<SetpL<Op, ScalarType::S32>> : &loop<SetpL<Op, ScalarType::U32>>;
  if (bits == 64) return sg ? &loop<SetpL<Op, ScalarType::S64>> : &loop<SetpL<Op, ScalarType::U64>>;
  if (bits == 16) return sg ? &loop<SetpL<Op, ScalarType::S16>> : &loop<SetpL<Op, ScalarType::U16>>;
  return nullptr;
}

Fn setpInt(CmpOp op, bool sg, unsigned bits) {
  switch (op) {
    case CmpOp::Eq: return setpIntFor<CmpOp::Eq>(sg, bits);
    case CmpOp::Ne: return setpIntFor<CmpOp::Ne>(sg, bits);
    case CmpOp::Lt: return setpIntFor<CmpOp::Lt>(sg, bits);
    case CmpOp::Le: return setpIntFor<CmpOp::Le>(sg, bits);
    case CmpOp::Gt: return setpIntFor<CmpOp::Gt>(sg, bits);
    case CmpOp::Ge: return setpIntFor<CmpOp::Ge>(sg, bits);
    case CmpOp::Lo: return setpIntFor<CmpOp::Lo>(sg, bits);
    case CmpOp::Ls: return setpIntFor<CmpOp::Ls>(sg, bits);
    case CmpOp::Hi: return setpIntFor<CmpOp::Hi>(sg, bits);
    case CmpOp::Hs: return setpIntFor<CmpOp::Hs>(sg, bits);
    default: return nullptr;
  }
}

template <ScalarType T>
Fn setpFloat(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return &loop<SetpL<CmpOp::Eq, T>>;
    case CmpOp::Ne: return &loop<SetpL<CmpOp::Ne, T>>;
    case CmpOp::Lt: return &loop<SetpL<CmpOp::Lt, T>>;
    case CmpOp::Le: return &loop<SetpL<CmpOp::Le, T>>;
    case CmpOp::Gt: return &loop<SetpL<CmpOp::Gt, T>>;
    case CmpOp::Ge: return &loop<SetpL<CmpOp::Ge, T>>;
    case CmpOp::Equ: return &loop<SetpL<CmpOp::Equ, T>>;
    case CmpOp::Neu: return &loop<SetpL<CmpOp::Neu, T>>;
    case CmpOp::Ltu: return &loop<SetpL<CmpOp::Ltu, T>>;
    case CmpOp::Leu: return &loop<SetpL<CmpOp::Leu, T>>;
    case CmpOp::Gtu: return &loop<SetpL<CmpOp::Gtu, T>>;
    case CmpOp::Geu: return &loop<SetpL<CmpOp::Geu, T>>;
    case CmpOp::Num: return &loop<SetpL<CmpOp::Num, T>>;
    case CmpOp::Nan: return &loop<SetpL<CmpOp::Nan, T>>;
    default: return nullptr;
  }
}

// Integer-to-integer cvt without saturation: extend from the source width, cut to the
// destination's (the destination's signedness does not matter then).
Fn cvtInt(ScalarType dt, ScalarType st) {
  const unsigned db = typeBits(dt), sb = typeBits(st);
  const bool ss = typeClass(st) == TypeClass::Signed;
#define PTXOPT_CVT(FROM, TO)                                                                                  \
  if (sb == FROM && db == TO)                                                                                   \
    return ss ? &loop<CvtL<ScalarType::U##TO, ScalarType::S##FROM>> : &loop<CvtL<ScalarType::U##TO, ScalarType::U##FROM>>;
  PTXOPT_CVT(32, 64)
  PTXOPT_CVT(64, 32)
  PTXOPT_CVT(16, 32)
  PTXOPT_CVT(32, 16)
  PTXOPT_CVT(8, 32)
  PTXOPT_CVT(32, 8)
  PTXOPT_CVT(16, 64)
  PTXOPT_CVT(8, 64)
#undef PTXOPT_CVT
  return nullptr;
}

bool isInt(ScalarType t) {
  TypeClass c = typeClass(t);
  return c == TypeClass::Signed || c == TypeClass::Unsigned || c == TypeClass::Bit;
}

Fn specialized(const DInst& I) {
  if (I.ndst != 1) return nullptr;
  const unsigned bits = typeBits(I.t);
  const bool sg = typeClass(I.t) == TypeClass::Signed;
  switch (I.op) {
    case XOp::IntArith: {
      if (I.sat || I.setsCarry || I.readsCarry || I.hi || !isInt(I.t)) return nullptr;
      if (I.wide) {
        if (I.arith != ArithOp::Mul || bits != 32) return nullptr;
        return sg ? &loop<IntL<ArithOp::Mul, 32, true, true>> : &loop<IntL<ArithOp::Mul, 32, false, true>>;
      }
      switch (I.arith) {
        case ArithOp::Add: return I.nsrc == 2 ? byWidth<IntOf<ArithOp::Add>::L>(bits, sg) : nullptr;
        case ArithOp::Sub: return I.nsrc == 2 ? byWidth<IntOf<ArithOp::Sub>::L>(bits, sg) : nullptr;
        case ArithOp::Mul: return I.nsrc == 2 ? byWidth<IntOf<ArithOp::Mul>::L>(bits, sg) : nullptr;
        case ArithOp::Mad: return I.nsrc == 3 ? byWidth<IntOf<ArithOp::Mad>::L>(bits, sg) : nullptr;
        default: return nullptr;
      }
    }
    case XOp::BitOp: {
      if (I.negMask || I.t == ScalarType::Pred) return nullptr;
      switch (I.bit) {
        case BitOp::And: return I.nsrc == 2 ? byWidth<BitOf<BitOp::And>::L>(bits, sg) : nullptr;
        case BitOp::Or: return I.nsrc == 2 ? byWidth<BitOf<BitOp::Or>::L>(bits, sg) : nullptr;
        case BitOp::Xor: return I.nsrc == 2 ? byWidth<BitOf<BitOp::Xor>::L>(bits, sg) : nullptr;
        case BitOp::Not: return I.nsrc == 1 ? byWidth<BitOf<BitOp::Not>::L>(bits, sg) : nullptr;
        case BitOp::Shl: return I.nsrc == 2 ? byWidth<BitOf<BitOp::Shl>::L>(bits, sg) : nullptr;
        case BitOp::Shr: return I.nsrc == 2 ? byWidth<BitOf<BitOp::Shr>::L>(bits, sg) : nullptr;
        default: return nullptr;
      }
    }
    case XOp::Mov:
      if (I.nsrc != 1 || I.negMask || I.t == ScalarType::Pred) return nullptr;
      return bits >= 8 ? byWidth<MovOf>(bits, false) : nullptr;
    case XOp::Selp: return I.nsrc == 3 && !I.negMask ? &loop<SelpL> : nullptr;
    case XOp::Cvt:
      if (I.sat || !isInt(I.t) || !isInt(I.t2)) return nullptr;
      return cvtInt(I.t, I.t2);
    case XOp::Setp: {
      if (I.nsrc != 2 || I.negMask) return nullptr;
      if (I.t == ScalarType::F32) return I.ftz ? nullptr : setpFloat<ScalarType::F32>(I.cmp);
      if (I.t == ScalarType::F64) return setpFloat<ScalarType::F64>(I.cmp);
      if (!isInt(I.t)) return nullptr;
      return setpInt(I.cmp, sg, bits);
    }
    case XOp::FloatArith: {
      if (I.ftz || I.sat || I.relu || I.approx || I.nan != MinMaxNaN::Drop || I.rnd != Rnd::Nearest) return nullptr;
      const bool f32 = I.t == ScalarType::F32, f64 = I.t == ScalarType::F64;
      if (!f32 && !f64) return nullptr;
      switch (I.arith) {
        case ArithOp::Add:
          return I.nsrc == 2 ? (f32 ? &loop<FloatL<ArithOp::Add, F32Format>> : &loop<FloatL<ArithOp::Add, F64Format>>) : nullptr;
        case ArithOp::Sub:
          return I.nsrc == 2 ? (f32 ? &loop<FloatL<ArithOp::Sub, F32Format>> : &loop<FloatL<ArithOp::Sub, F64Format>>) : nullptr;
        case ArithOp::Mul:
          return I.nsrc == 2 ? (f32 ? &loop<FloatL<ArithOp::Mul, F32Format>> : &loop<FloatL<ArithOp::Mul, F64Format>>) : nullptr;
        // fma and mad (fused, as on every target from sm_20; the general loop agrees)
        case ArithOp::Mad: return I.nsrc == 3 ? fmaLoop(f32) : nullptr;
        default: return nullptr;
      }
    }
    default: return nullptr;
  }
}

Fn general(const DInst& I) {
  switch (I.op) {
    case XOp::Mov: return I.symbolOperand ? nullptr : &movGeneral;
    case XOp::MovPack: return &movPackGeneral;
    case XOp::MovUnpack: return &movUnpackGeneral;
    case XOp::IntArith: return &intArithGeneral;
    case XOp::BitOp: return &bitOpGeneral;
    case XOp::Sad: return &sadGeneral;
    case XOp::Dp: return &dpGeneral;
    case XOp::Video: return &videoGeneral;
    case XOp::FloatArith:
      if (I.arith == ArithOp::Testp) return &testpGeneral;
      return I.t == ScalarType::F64 ? &floatFormatGeneral<F64Format> : &floatFormatGeneral<F32Format>;
    case XOp::HalfArith: return I.t == ScalarType::BF16 || I.t == ScalarType::BF16x2 ? &halfGeneral<true> : &halfGeneral<false>;
    case XOp::Setp:
    case XOp::Set: return &compareGeneral;
    case XOp::Selp: return &selpGeneral;
    case XOp::Slct: return &slctGeneral;
    case XOp::Cvt: return &cvtGeneral;
    case XOp::Cvta: return I.symbolOperand ? nullptr : &cvtaGeneral;
    case XOp::Isspacep: return &isspacepGeneral;
    default: return nullptr;
  }
}

}  // namespace

bool floatOpSupported(ArithOp op, ScalarType t) {
  if (op == ArithOp::Testp) return t == ScalarType::F32 || t == ScalarType::F64;
  switch (t) {
    case ScalarType::F32: return F32Format::supports(op);
    case ScalarType::F64: return F64Format::supports(op);
    case ScalarType::F16:
    case ScalarType::F16x2:
    case ScalarType::BF16:
    case ScalarType::BF16x2: return HalfFormat<false>::supports(op);
    default: return false;
  }
}

void selectKernels(DInst& I) {
  I.general = general(I);
  Fn s = I.general ? specialized(I) : nullptr;
  I.fast = s ? s : I.general;
}

bool hostHasFma() {
#if defined(__x86_64__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") != 0;
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace ptxopt::emu
