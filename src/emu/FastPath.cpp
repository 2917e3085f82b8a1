// Specialized per-instruction loops for the forms that dominate real kernels: integer add, sub,
// mul, mad, logic, shifts and compares, mov, selp, integer widening cvt, and round-to-nearest
// f32/f64 add, sub, mul and fma. Each loop is a template instantiated for one operation and
// width, so the per-lane work is a handful of host instructions and a full warp runs as a
// straight loop the compiler can vectorize.
//
// Every form here has the same result as the general path in Execute.cpp (the comparisons are
// the shared ptxopt::compareInt/compareFloat); `ptxrun --no-fast-paths` runs the general path
// only, and tests/lit/ptxrun/fast-paths.test checks that both agree bit for bit.
//
// Compiled with -ffp-contract=off: a multiply and an add stay two roundings.
#include "FastPath.h"

#include <cmath>

#include "Semantics.h"

namespace ptxopt::emu {

namespace {

using Fn = FastFn;

// d = OP(a, b, c) on the executing lanes.
template <typename Op>
void loop(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = R + static_cast<size_t>(I.dst[0]) * 32;
  const uint64_t* a = R + static_cast<size_t>(I.src[0]) * 32;
  const uint64_t* b = R + static_cast<size_t>(Op::kArity > 1 ? I.src[1] : I.src[0]) * 32;
  const uint64_t* c = R + static_cast<size_t>(Op::kArity > 2 ? I.src[2] : I.src[0]) * 32;
  if (exec == 0xFFFFFFFFu) {
    // Results go to a buffer first: d may be one of the sources.
    uint64_t out[32];
    for (int l = 0; l < 32; ++l) out[l] = Op::f(a[l], b[l], c[l]);
    for (int l = 0; l < 32; ++l) d[l] = out[l];
    return;
  }
  while (exec) {
    int l = __builtin_ctz(exec);
    d[l] = Op::f(a[l], b[l], c[l]);
    exec &= exec - 1;
  }
}

template <unsigned Bits>
constexpr uint64_t kMask = widthMask(Bits);

// ---- integers ---------------------------------------------------------------------------------

template <unsigned B> struct Add { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return (a + b) & kMask<B>; } };
template <unsigned B> struct Sub { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return (a - b) & kMask<B>; } };
template <unsigned B> struct MulLo { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return (a * b) & kMask<B>; } };
template <unsigned B> struct MadLo { static constexpr int kArity = 3; static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return (a * b + c) & kMask<B>; } };
struct MulWideS32 {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) {
    return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int64_t>(static_cast<int32_t>(b)));
  }
};
struct MulWideU32 {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return (a & 0xFFFFFFFFu) * (b & 0xFFFFFFFFu); }
};
template <unsigned B> struct And { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return a & b & kMask<B>; } };
template <unsigned B> struct Or { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return (a | b) & kMask<B>; } };
template <unsigned B> struct Xor { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return (a ^ b) & kMask<B>; } };
template <unsigned B> struct Not { static constexpr int kArity = 1; static uint64_t f(uint64_t a, uint64_t, uint64_t) { return ~a & kMask<B>; } };
// Shift amounts are unsigned 32-bit; anything of at least the width shifts everything out.
template <unsigned B> struct Shl {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) {
    uint64_t n = b & 0xFFFFFFFFu;
    return n >= B ? 0 : (a << n) & kMask<B>;
  }
};
template <unsigned B> struct ShrU {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) {
    uint64_t n = b & 0xFFFFFFFFu;
    return n >= B ? 0 : (a & kMask<B>) >> n;
  }
};
template <unsigned B> struct ShrS {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) {
    uint64_t n = b & 0xFFFFFFFFu;
    int64_t v = signExtend(a, B);
    return static_cast<uint64_t>(n >= B ? (v < 0 ? -1 : 0) : v >> n) & kMask<B>;
  }
};
template <unsigned B> struct Mov { static constexpr int kArity = 1; static uint64_t f(uint64_t a, uint64_t, uint64_t) { return a & kMask<B>; } };
struct Selp { static constexpr int kArity = 3; static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return (c & 1) ? a : b; } };
// cvt between integers without saturation: extend from the source width, cut to the destination's.
template <unsigned SB, bool SSigned, unsigned DB> struct CvtInt {
  static constexpr int kArity = 1;
  static uint64_t f(uint64_t a, uint64_t, uint64_t) {
    uint64_t v = SSigned ? static_cast<uint64_t>(signExtend(a, SB)) : a & kMask<SB>;
    return v & kMask<DB>;
  }
};
template <CmpOp Op, bool Signed, unsigned B> struct SetpInt {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) {
    uint64_t x = Signed ? static_cast<uint64_t>(signExtend(a, B)) : a & kMask<B>;
    uint64_t y = Signed ? static_cast<uint64_t>(signExtend(b, B)) : b & kMask<B>;
    return compareInt(Op, Signed, x, y);
  }
};

// ---- floats (round to nearest, no .ftz/.sat) ----------------------------------------------

[[gnu::always_inline]] inline float F(uint64_t v) { return bitsFloat(static_cast<uint32_t>(v)); }
[[gnu::always_inline]] inline uint64_t FB(float f) { return floatBits(f); }
[[gnu::always_inline]] inline double D(uint64_t v) { return bitsDouble(v); }
[[gnu::always_inline]] inline uint64_t DB(double d) { return doubleBits(d); }

struct AddF32 { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return FB(F(a) + F(b)); } };
struct SubF32 { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return FB(F(a) - F(b)); } };
struct MulF32 { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return FB(F(a) * F(b)); } };
struct AddF64 { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return DB(D(a) + D(b)); } };
struct SubF64 { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return DB(D(a) - D(b)); } };
struct MulF64 { static constexpr int kArity = 2; static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return DB(D(a) * D(b)); } };
template <CmpOp Op> struct SetpF32 {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return compareFloat(Op, F(a), F(b)); }
};
template <CmpOp Op> struct SetpF64 {
  static constexpr int kArity = 2;
  static uint64_t f(uint64_t a, uint64_t b, uint64_t) { return compareFloat(Op, D(a), D(b)); }
};

// fma with the host's fused instruction where the CPU has one (a call into libm otherwise).
// The body is forced inline into two functions, one compiled for FMA-capable CPUs; the choice
// is made once at run time (no ifunc: sanitizer runtimes cannot run resolvers that early).
// Every lane is computed (inactive lanes' registers are plain numbers) and only the executing
// ones are written.
template <typename T>
[[gnu::always_inline]] inline void fmaBody(const DInst& I, uint64_t* R, uint32_t exec) {
  uint64_t* d = R + static_cast<size_t>(I.dst[0]) * 32;
  const uint64_t* a = R + static_cast<size_t>(I.src[0]) * 32;
  const uint64_t* b = R + static_cast<size_t>(I.src[1]) * 32;
  const uint64_t* c = R + static_cast<size_t>(I.src[2]) * 32;
  uint64_t out[32];
  for (int l = 0; l < 32; ++l) {
    if constexpr (sizeof(T) == 4) out[l] = FB(__builtin_fmaf(F(a[l]), F(b[l]), F(c[l])));
    else out[l] = DB(__builtin_fma(D(a[l]), D(b[l]), D(c[l])));
  }
  for (; exec; exec &= exec - 1) {
    int l = __builtin_ctz(exec);
    d[l] = out[l];
  }
}
void fmaF32Loop(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<float>(I, R, exec); }
void fmaF64Loop(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<double>(I, R, exec); }
#if defined(__x86_64__)
__attribute__((target("fma"))) void fmaF32LoopFma(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<float>(I, R, exec); }
__attribute__((target("fma"))) void fmaF64LoopFma(const DInst& I, uint64_t* R, uint32_t exec) { fmaBody<double>(I, R, exec); }
bool hostHasFma() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") != 0;
  }();
  return has;
}
Fn fmaLoop(bool f32) {
  if (hostHasFma()) return f32 ? &fmaF32LoopFma : &fmaF64LoopFma;
  return f32 ? &fmaF32Loop : &fmaF64Loop;
}
#else
Fn fmaLoop(bool f32) { return f32 ? &fmaF32Loop : &fmaF64Loop; }
#endif

// ---- selection --------------------------------------------------------------------------------

template <template <unsigned> class Op>
Fn byWidth(unsigned bits) {
  switch (bits) {
    case 16: return &loop<Op<16>>;
    case 32: return &loop<Op<32>>;
    case 64: return &loop<Op<64>>;
    default: return nullptr;
  }
}

template <CmpOp Op>
Fn setpIntFor(bool sg, unsigned bits) {
  if (bits == 32) return sg ? &loop<SetpInt<Op, true, 32>> : &loop<SetpInt<Op, false, 32>>;
  if (bits == 64) return sg ? &loop<SetpInt<Op, true, 64>> : &loop<SetpInt<Op, false, 64>>;
  if (bits == 16) return sg ? &loop<SetpInt<Op, true, 16>> : &loop<SetpInt<Op, false, 16>>;
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

template <template <CmpOp> class S>
Fn setpFloat(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return &loop<S<CmpOp::Eq>>;
    case CmpOp::Ne: return &loop<S<CmpOp::Ne>>;
    case CmpOp::Lt: return &loop<S<CmpOp::Lt>>;
    case CmpOp::Le: return &loop<S<CmpOp::Le>>;
    case CmpOp::Gt: return &loop<S<CmpOp::Gt>>;
    case CmpOp::Ge: return &loop<S<CmpOp::Ge>>;
    case CmpOp::Equ: return &loop<S<CmpOp::Equ>>;
    case CmpOp::Neu: return &loop<S<CmpOp::Neu>>;
    case CmpOp::Ltu: return &loop<S<CmpOp::Ltu>>;
    case CmpOp::Leu: return &loop<S<CmpOp::Leu>>;
    case CmpOp::Gtu: return &loop<S<CmpOp::Gtu>>;
    case CmpOp::Geu: return &loop<S<CmpOp::Geu>>;
    case CmpOp::Num: return &loop<S<CmpOp::Num>>;
    case CmpOp::Nan: return &loop<S<CmpOp::Nan>>;
    default: return nullptr;
  }
}

Fn cvtInt(ScalarType dt, ScalarType st) {
  const unsigned db = typeBits(dt), sb = typeBits(st);
  const bool ss = typeClass(st) == TypeClass::Signed;
#define PTXOPT_CVT(S, D)                                                   \
  if (sb == S && db == D) return ss ? &loop<CvtInt<S, true, D>> : &loop<CvtInt<S, false, D>>;
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

}  // namespace

FastFn selectFastPath(const DInst& I) {
  if (I.ndst != 1) return nullptr;
  const unsigned bits = typeBits(I.t);
  const bool sg = typeClass(I.t) == TypeClass::Signed;
  switch (I.op) {
    case XOp::IntArith: {
      if (I.sat || I.setsCarry || I.readsCarry || I.hi || !isInt(I.t)) return nullptr;
      if (I.wide) {
        if (I.mode == Arith::Mul && bits == 32) return sg ? &loop<MulWideS32> : &loop<MulWideU32>;
        return nullptr;
      }
      switch (I.mode) {
        case Arith::Add: return I.nsrc == 2 ? byWidth<Add>(bits) : nullptr;
        case Arith::Sub: return I.nsrc == 2 ? byWidth<Sub>(bits) : nullptr;
        case Arith::Mul: return I.nsrc == 2 ? byWidth<MulLo>(bits) : nullptr;
        case Arith::Mad: return I.nsrc == 3 ? byWidth<MadLo>(bits) : nullptr;
        default: return nullptr;
      }
    }
    case XOp::BitOp: {
      if (I.negMask || I.t == ScalarType::Pred) return nullptr;
      switch (static_cast<Opcode>(I.mode)) {
        case Opcode::And: return I.nsrc == 2 ? byWidth<And>(bits) : nullptr;
        case Opcode::Or: return I.nsrc == 2 ? byWidth<Or>(bits) : nullptr;
        case Opcode::Xor: return I.nsrc == 2 ? byWidth<Xor>(bits) : nullptr;
        case Opcode::Not: return I.nsrc == 1 ? byWidth<Not>(bits) : nullptr;
        case Opcode::Shl: return I.nsrc == 2 ? byWidth<Shl>(bits) : nullptr;
        case Opcode::Shr: return I.nsrc == 2 ? (sg ? byWidth<ShrS>(bits) : byWidth<ShrU>(bits)) : nullptr;
        default: return nullptr;
      }
    }
    case XOp::Mov:
      if (I.mode != 0 || I.nsrc != 1 || I.t == ScalarType::Pred) return nullptr;
      return bits >= 8 ? byWidth<Mov>(bits) : nullptr;
    case XOp::Selp: return I.nsrc == 3 && !I.negMask ? &loop<Selp> : nullptr;
    case XOp::Cvt:
      if (I.sat || !isInt(I.t) || !isInt(I.t2)) return nullptr;
      return cvtInt(I.t, I.t2);
    case XOp::Setp: {
      if (I.nsrc != 2 || I.negMask) return nullptr;
      const CmpOp op = static_cast<CmpOp>(I.mode);
      if (I.t == ScalarType::F32) return I.ftz ? nullptr : setpFloat<SetpF32>(op);
      if (I.t == ScalarType::F64) return setpFloat<SetpF64>(op);
      if (!isInt(I.t)) return nullptr;
      return setpInt(op, sg, bits);
    }
    case XOp::FloatArith: {
      if (I.ftz || I.sat || I.mode2 || I.approx || I.rnd != Rnd::Nearest) return nullptr;
      const bool f32 = I.t == ScalarType::F32, f64 = I.t == ScalarType::F64;
      if (!f32 && !f64) return nullptr;
      switch (I.mode) {
        case Arith::Add: return I.nsrc == 2 ? (f32 ? &loop<AddF32> : &loop<AddF64>) : nullptr;
        case Arith::Sub: return I.nsrc == 2 ? (f32 ? &loop<SubF32> : &loop<SubF64>) : nullptr;
        case Arith::Mul: return I.nsrc == 2 ? (f32 ? &loop<MulF32> : &loop<MulF64>) : nullptr;
        // fma and mad (fused, as on every target from sm_20; the general path agrees)
        case Arith::Mad: return I.nsrc == 3 ? fmaLoop(f32) : nullptr;
        default: return nullptr;
      }
    }
    default: return nullptr;
  }
}

}  // namespace ptxopt::emu
