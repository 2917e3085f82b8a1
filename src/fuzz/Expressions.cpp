// Straight-line code: integer arithmetic of every width and signedness, f32/f64/f16 with
// rounding modes, conversions, predicates and their logic, guarded instructions and selp.
#include <cstdlib>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

namespace {

const char* const kRound[] = {".rn", ".rz", ".rm", ".rp"};
const char* const kRoundInt[] = {".rni", ".rzi", ".rmi", ".rpi"};

}  // namespace

Value Gen::pickExact(Kind k, Uni u) {
  std::vector<const Slot*> ok;
  for (const auto& scope : fn_->scopes)
    for (const Slot& slot : scope)
      if (slot.v.kind == k && slot.v.uni == u) ok.push_back(&slot);
  if (ok.empty()) return pickReg(k, u);
  return rng.pick(ok)->v;
}

// A divisor that is never zero (and never -1, so no signed overflow): an immediate in
// [1, 100] or (x & 15) + 1.
Value Gen::safeDivisor(Kind k, Uni maxU) {
  if (rng.chance(35)) return immInt(k, rng.pick<int64_t>({1, 2, 3, 4, 7, 8, 10, 16, 100}));
  Value x = pickReg(k, maxU);
  Value t = newReg(k, x.uni);
  const char* w = k == Kind::B64 ? "64" : (k == Kind::B16 ? "16" : "32");
  emit(fmt::format("and.b{} \t{}, {}, 15", w, t.text, x.text));
  Value d = newReg(k, x.uni);
  emit(fmt::format("add.u{} \t{}, {}, 1", w, d.text, t.text));
  return d;
}

Gen::Op Gen::opInt32(Uni maxU) {
  auto A = [&] { return pick(Kind::B32, maxU); };
  auto R = [&] { return pickReg(Kind::B32, maxU); };
  const char* s = rng.coin() ? "s32" : "u32";
  Op op;
  op.kind = Kind::B32;
  switch (rng.weighted({14, 8, 6, 4, 4, 10, 7, 6, 3, 5, 4, 3, 3, 3, 2, 2, 2, 2, 1, 2})) {
    case 0: op.text = fmt::format("{}.{}", rng.pick<const char*>({"add", "sub"}), s); op.ins = {R(), A()}; break;
    case 1: op.text = fmt::format("mul.{}.{}", rng.pick<const char*>({"lo", "lo", "hi"}), s); op.ins = {R(), A()};
      break;
    case 2: op.text = fmt::format("mad.{}.{}", rng.pick<const char*>({"lo", "lo", "hi"}), s);
      op.ins = {R(), A(), A()};
      break;
    case 3: op.text = fmt::format("{}.{}", rng.pick<const char*>({"div", "rem"}), s);
      op.ins = {R(), safeDivisor(Kind::B32, maxU)};
      break;
    case 4: op.text = rng.pick<const char*>({"add.sat.s32", "sub.sat.s32"}); op.ins = {R(), A()}; break;
    case 5: op.text = fmt::format("{}.b32", rng.pick<const char*>({"and", "or", "xor"})); op.ins = {R(), A()}; break;
    case 6: {
      op.text = rng.pick<const char*>({"shl.b32", "shr.u32", "shr.s32", "shr.b32"});
      Value amount = rng.chance(60) ? immInt(Kind::B32, rng.range(0, 33)) : R();
      op.ins = {R(), amount};
      break;
    }
    case 7: op.text = fmt::format("{}.{}", rng.pick<const char*>({"min", "max"}), s); op.ins = {R(), A()}; break;
    case 8: op.text = fmt::format("{}.{}", rng.pick<const char*>({"mul24.lo", "mul24.hi", "mad24.lo"}), s);
      op.ins = {R(), A()};
      if (op.text.rfind("mad24", 0) == 0) op.ins.push_back(A());
      break;
    case 9: op.text = rng.pick<const char*>({"not.b32", "neg.s32", "abs.s32", "cnot.b32", "popc.b32", "clz.b32",
                                             "brev.b32", "bfind.u32", "bfind.s32", "bfind.shiftamt.u32", "mov.b32"});
      op.ins = {R()};
      break;
    case 10: op.text = fmt::format("bfe.{}", s);
      op.ins = {R(), rng.chance(70) ? immInt(Kind::B32, rng.range(0, 31)) : R(),
                rng.chance(70) ? immInt(Kind::B32, rng.range(0, 32)) : R()};
      break;
    case 11: op.text = "bfi.b32";
      op.ins = {R(), R(), rng.chance(70) ? immInt(Kind::B32, rng.range(0, 31)) : R(),
                rng.chance(70) ? immInt(Kind::B32, rng.range(0, 32)) : R()};
      break;
    case 12: op.text = std::string("prmt.b32") + rng.pick<const char*>({"", "", "", ".f4e", ".b4e", ".rc8", ".ecl",
                                                                          ".ecr", ".rc16"});
      op.ins = {R(), R(), rng.chance(70) ? immInt(Kind::B32, rng.range(0, 0xffff)) : R()};
      break;
    case 13: op.text = "lop3.b32"; op.ins = {R(), R(), R(), immInt(Kind::B32, rng.range(0, 255))}; break;
    case 14: op.text = fmt::format("shf.{}.{}.b32", rng.pick<const char*>({"l", "r"}),
                                   rng.pick<const char*>({"wrap", "clamp"}));
      op.ins = {R(), R(), rng.chance(60) ? immInt(Kind::B32, rng.range(0, 40)) : R()};
      break;
    case 15: op.text = fmt::format("sad.{}", s); op.ins = {R(), R(), A()}; break;
    case 16: op.text = fmt::format("dp4a.{}.{}", rng.pick<const char*>({"u32", "s32"}), s);
      op.ins = {R(), R(), A()};
      break;
    case 17: op.text = rng.chance(50) ? fmt::format("bmsk.{}.b32", rng.pick<const char*>({"clamp", "wrap"}))
                                      : fmt::format("szext.{}.{}", rng.pick<const char*>({"clamp", "wrap"}), s);
      op.ins = {R(), rng.chance(60) ? immInt(Kind::B32, rng.range(0, 40)) : R()};
      break;
    case 18: op.text = fmt::format("dp2a.{}.{}.{}", rng.pick<const char*>({"lo", "hi"}),
                                   rng.pick<const char*>({"u32", "s32"}), s);
      op.ins = {R(), R(), A()};
      break;
    default: {
      const char* cmp = rng.pick<const char*>({"eq", "ne", "lt", "le", "gt", "ge"});
      if (rng.coin()) {
        op.text = fmt::format("set.{}.u32.{}", cmp, s);
        op.ins = {R(), A()};
      } else {
        op.text = "slct.s32.s32";
        op.ins = {R(), A(), R()};
      }
      break;
    }
  }
  return op;
}

Gen::Op Gen::opInt64(Uni maxU) {
  auto A = [&] { return pick(Kind::B64, maxU); };
  auto R = [&] { return pickReg(Kind::B64, maxU); };
  auto R32 = [&] { return pickReg(Kind::B32, maxU); };
  auto shift = [&] { return rng.chance(60) ? immInt(Kind::B32, rng.range(0, 65)) : R32(); };
  const char* s = rng.coin() ? "s64" : "u64";
  Op op;
  op.kind = Kind::B64;
  switch (rng.weighted({12, 6, 4, 10, 6, 6, 8, 3, 4, 3, 3, 2, 2})) {
    case 0: op.text = fmt::format("{}.{}", rng.pick<const char*>({"add", "sub"}), s); op.ins = {R(), A()}; break;
    case 1: op.text = fmt::format("mul.{}.{}", rng.pick<const char*>({"lo", "hi"}), s); op.ins = {R(), A()}; break;
    case 2: op.text = fmt::format("mad.lo.{}", s); op.ins = {R(), A(), A()}; break;
    case 3: op.text = fmt::format("mul.wide.{}", rng.pick<const char*>({"s32", "u32"}));
      op.ins = {R32(), pick(Kind::B32, maxU)};
      break;
    case 4: op.text = fmt::format("mad.wide.{}", rng.pick<const char*>({"s32", "u32"}));
      op.ins = {R32(), pick(Kind::B32, maxU), A()};
      break;
    case 5: op.text = fmt::format("{}.b64", rng.pick<const char*>({"and", "or", "xor"})); op.ins = {R(), A()}; break;
    case 6: op.text = rng.pick<const char*>({"shl.b64", "shr.u64", "shr.s64", "shr.b64"}); op.ins = {R(), shift()};
      break;
    case 7: op.text = fmt::format("{}.{}", rng.pick<const char*>({"min", "max"}), s); op.ins = {R(), A()}; break;
    case 8: op.text = rng.pick<const char*>({"not.b64", "neg.s64", "abs.s64", "brev.b64", "mov.b64", "cnot.b64"});
      op.ins = {R()};
      break;
    case 9: op.text = fmt::format("{}.{}", rng.pick<const char*>({"div", "rem"}), s);
      op.ins = {R(), safeDivisor(Kind::B64, maxU)};
      break;
    case 10: op.text = fmt::format("bfe.{}", s);
      op.ins = {R(), immInt(Kind::B32, rng.range(0, 63)), rng.chance(70) ? immInt(Kind::B32, rng.range(0, 64)) : R32()};
      break;
    case 11: op.text = "bfi.b64";
      op.ins = {R(), R(), immInt(Kind::B32, rng.range(0, 63)), immInt(Kind::B32, rng.range(0, 64))};
      break;
    default: {
      // A 64-bit result into a 32-bit register.
      op.kind = Kind::B32;
      op.text = rng.pick<const char*>({"popc.b64", "clz.b64", "bfind.u64", "bfind.s64"});
      op.ins = {R()};
      break;
    }
  }
  return op;
}

Gen::Op Gen::opInt16(Uni maxU) {
  auto A = [&] { return pick(Kind::B16, maxU); };
  auto R = [&] { return pickReg(Kind::B16, maxU); };
  const char* s = rng.coin() ? "s16" : "u16";
  Op op;
  op.kind = Kind::B16;
  switch (rng.weighted({10, 6, 4, 8, 6, 5, 4, 3, 3})) {
    case 0: op.text = fmt::format("{}.{}", rng.pick<const char*>({"add", "sub"}), s); op.ins = {R(), A()}; break;
    case 1: op.text = fmt::format("mul.{}.{}", rng.pick<const char*>({"lo", "hi"}), s); op.ins = {R(), A()}; break;
    case 2: op.text = fmt::format("mad.lo.{}", s); op.ins = {R(), A(), A()}; break;
    case 3: op.text = fmt::format("{}.b16", rng.pick<const char*>({"and", "or", "xor"})); op.ins = {R(), A()}; break;
    case 4: op.text = rng.pick<const char*>({"shl.b16", "shr.u16", "shr.s16"});
      op.ins = {R(), rng.chance(70) ? immInt(Kind::B32, rng.range(0, 17)) : pickReg(Kind::B32, maxU)};
      break;
    case 5: op.text = fmt::format("{}.{}", rng.pick<const char*>({"min", "max"}), s); op.ins = {R(), A()}; break;
    case 6: op.text = rng.pick<const char*>({"not.b16", "neg.s16", "abs.s16", "mov.b16", "cnot.b16"});
      op.ins = {R()};
      break;
    case 7: op.text = fmt::format("{}.{}", rng.pick<const char*>({"div", "rem"}), s);
      op.ins = {R(), safeDivisor(Kind::B16, maxU)};
      break;
    default: op.kind = Kind::B32;
      op.text = fmt::format("mul.wide.{}", s);
      op.ins = {R(), A()};
      break;
  }
  return op;
}

Gen::Op Gen::opF32(Uni maxU) {
  auto A = [&] { return pick(Kind::F32, maxU); };
  auto R = [&] { return pickReg(Kind::F32, maxU); };
  auto ftz = [&] { return rng.chance(15) ? ".ftz" : ""; };
  auto sat = [&] { return rng.chance(8) ? ".sat" : ""; };
  Op op;
  op.kind = Kind::F32;
  unsigned approxWeight = opts.approxMath ? 4 : 0;
  switch (rng.weighted({16, 8, 6, 4, 4, 6, 4, approxWeight, 3, 2})) {
    case 0: {
      const char* rnd = rng.chance(40) ? "" : kRound[rng.below(4)];
      op.text = fmt::format("{}{}{}{}.f32", rng.pick<const char*>({"add", "sub", "mul"}), rnd, ftz(), sat());
      op.ins = {R(), A()};
      break;
    }
    case 1: op.text = fmt::format("{}{}{}{}.f32", rng.pick<const char*>({"fma", "fma", "mad"}), kRound[rng.below(4)],
                                  ftz(), sat());
      op.ins = {R(), A(), A()};
      break;
    case 2: op.text = fmt::format("{}.f32", rng.pick<const char*>({"abs", "neg", "abs.ftz", "neg.ftz", "mov"}));
      op.ins = {R()};
      break;
    case 3: op.text = fmt::format("div{}{}.f32", kRound[rng.below(4)], ftz()); op.ins = {R(), A()}; break;
    case 4: {
      Value x = R();
      Value a = newReg(Kind::F32, x.uni);
      emit(fmt::format("abs.f32 \t{}, {}", a.text, x.text));
      op.text = fmt::format("{}{}{}.f32", rng.pick<const char*>({"sqrt", "sqrt", "rcp"}), kRound[rng.below(4)], ftz());
      op.ins = {a};
      break;
    }
    case 5: op.text = fmt::format("{}{}{}.f32", rng.pick<const char*>({"min", "max"}), ftz(),
                                  rng.chance(20) ? ".NaN" : "");
      op.ins = {R(), A()};
      break;
    case 6: op.text = "copysign.f32"; op.ins = {R(), R()}; break;
    case 7: {
      Value x = R();
      switch (rng.below(7)) {
        case 0: op.text = fmt::format("div.approx{}.f32", ftz()); op.ins = {x, R()}; break;
        case 1: op.text = fmt::format("div.full{}.f32", ftz()); op.ins = {x, R()}; break;
        case 2: op.text = fmt::format("ex2.approx{}.f32", ftz()); op.ins = {x}; break;
        case 3: op.text = fmt::format("{}.approx{}.f32", rng.pick<const char*>({"sin", "cos"}), ftz()); op.ins = {x};
          break;
        case 4: op.text = "tanh.approx.f32"; op.ins = {x}; break;
        default: {
          Value a = newReg(Kind::F32, x.uni);
          emit(fmt::format("abs.f32 \t{}, {}", a.text, x.text));
          op.text = fmt::format("{}.approx{}.f32", rng.pick<const char*>({"lg2", "rsqrt", "sqrt", "rcp"}), ftz());
          op.ins = {a};
          break;
        }
      }
      break;
    }
    case 8: op.text = "selp.f32"; op.ins = {R(), A(), pickReg(Kind::Pred, maxU)}; break;
    default: op.text = "mov.b32";  // reinterpret integer bits as a float
      op.ins = {pickReg(Kind::B32, maxU)};
      break;
  }
  return op;
}

Gen::Op Gen::opF64(Uni maxU) {
  auto A = [&] { return pick(Kind::F64, maxU); };
  auto R = [&] { return pickReg(Kind::F64, maxU); };
  Op op;
  op.kind = Kind::F64;
  switch (rng.weighted({14, 8, 5, 4, 4, 5, 2, 2})) {
    case 0: {
      const char* rnd = rng.chance(40) ? "" : kRound[rng.below(4)];
      op.text = fmt::format("{}{}.f64", rng.pick<const char*>({"add", "sub", "mul"}), rnd);
      op.ins = {R(), A()};
      break;
    }
    case 1: op.text = fmt::format("{}{}.f64", rng.pick<const char*>({"fma", "mad"}), kRound[rng.below(4)]);
      op.ins = {R(), A(), A()};
      break;
    case 2: op.text = fmt::format("{}.f64", rng.pick<const char*>({"abs", "neg", "mov"})); op.ins = {R()}; break;
    case 3: op.text = fmt::format("div{}.f64", kRound[rng.below(4)]); op.ins = {R(), A()}; break;
    case 4: {
      Value x = R();
      Value a = newReg(Kind::F64, x.uni);
      emit(fmt::format("abs.f64 \t{}, {}", a.text, x.text));
      if (opts.approxMath && rng.chance(20)) {
        op.text = rng.pick<const char*>({"rsqrt.approx.f64", "rcp.approx.ftz.f64"});
      } else {
        op.text = fmt::format("{}{}.f64", rng.pick<const char*>({"sqrt", "rcp"}), kRound[rng.below(4)]);
      }
      op.ins = {a};
      break;
    }
    case 5: op.text = fmt::format("{}.f64", rng.pick<const char*>({"min", "max"})); op.ins = {R(), A()}; break;
    case 6: op.text = "copysign.f64"; op.ins = {R(), R()}; break;
    default: op.text = "selp.f64"; op.ins = {R(), A(), pickReg(Kind::Pred, maxU)}; break;
  }
  return op;
}

// Half precision in b16 registers (and f16x2 in b32 ones); f16 instructions take no
// immediates.
Gen::Op Gen::opHalf(Uni maxU) {
  auto R = [&] { return pickReg(Kind::B16, maxU); };
  auto ftz = [&] { return rng.chance(15) ? ".ftz" : ""; };
  Op op;
  op.kind = Kind::B16;
  switch (rng.weighted({10, 5, 4, 3, 3})) {
    case 0: op.text = fmt::format("{}{}{}{}.f16", rng.pick<const char*>({"add", "sub", "mul"}),
                                  rng.chance(50) ? ".rn" : "", ftz(), rng.chance(10) ? ".sat" : "");
      op.ins = {R(), R()};
      break;
    case 1: op.text = fmt::format("fma.rn{}{}.f16", ftz(), rng.chance(10) ? ".sat" : ""); op.ins = {R(), R(), R()};
      break;
    case 2: op.text = fmt::format("{}.f16", rng.pick<const char*>({"neg", "abs", "min", "max", "min.NaN"}));
      op.ins = {R()};
      if (op.text.rfind("min", 0) == 0 || op.text.rfind("max", 0) == 0) op.ins.push_back(R());
      break;
    case 3: op.kind = Kind::B32;
      op.text = fmt::format("{}.f16x2", rng.pick<const char*>({"add", "sub", "mul", "add.rn", "mul.rn"}));
      op.ins = {pickReg(Kind::B32, maxU), pickReg(Kind::B32, maxU)};
      break;
    default: op.kind = Kind::B32;
      op.text = "fma.rn.f16x2";
      op.ins = {pickReg(Kind::B32, maxU), pickReg(Kind::B32, maxU), pickReg(Kind::B32, maxU)};
      break;
  }
  return op;
}

Gen::Op Gen::opConvert(Uni maxU) {
  Op op;
  switch (rng.weighted({8, 8, 4, 3, 8, 5, 3, 3})) {
    case 0: {  // integer to float
      bool wide = rng.chance(30);
      const char* src = wide ? rng.pick<const char*>({"s64", "u64"}) : rng.pick<const char*>({"s32", "u32"});
      bool f64 = rng.chance(35);
      op.kind = f64 ? Kind::F64 : Kind::F32;
      op.text = fmt::format("cvt{}.{}.{}", kRound[rng.below(4)], f64 ? "f64" : "f32", src);
      op.ins = {pickReg(wide ? Kind::B64 : Kind::B32, maxU)};
      break;
    }
    case 1: {  // float to integer (saturates; NaN gives 0)
      bool fromF64 = rng.chance(35), wide = rng.chance(25);
      op.kind = wide ? Kind::B64 : Kind::B32;
      op.text = fmt::format("cvt{}.{}.{}", kRoundInt[rng.below(4)],
                            wide ? rng.pick<const char*>({"s64", "u64"}) : rng.pick<const char*>({"s32", "u32"}),
                            fromF64 ? "f64" : "f32");
      op.ins = {pickReg(fromF64 ? Kind::F64 : Kind::F32, maxU)};
      break;
    }
    case 2: {  // float to float
      if (rng.coin()) {
        op.kind = Kind::F64;
        op.text = "cvt.f64.f32";
        op.ins = {pickReg(Kind::F32, maxU)};
      } else {
        op.kind = Kind::F32;
        op.text = fmt::format("cvt{}.f32.f64", kRound[rng.below(4)]);
        op.ins = {pickReg(Kind::F64, maxU)};
      }
      break;
    }
    case 3: {  // round to an integral value
      bool f64 = rng.chance(30);
      op.kind = f64 ? Kind::F64 : Kind::F32;
      op.text = fmt::format("cvt{}.{}.{}", kRoundInt[rng.below(4)], f64 ? "f64" : "f32", f64 ? "f64" : "f32");
      op.ins = {pickReg(op.kind, maxU)};
      break;
    }
    case 4: {  // integer widths and signedness
      struct W {
        const char* name;
        Kind reg;
      };
      static const W kTypes[] = {{"u8", Kind::B16},  {"s8", Kind::B16},  {"u16", Kind::B16}, {"s16", Kind::B16},
                                 {"u32", Kind::B32}, {"s32", Kind::B32}, {"u64", Kind::B64}, {"s64", Kind::B64}};
      const W& to = kTypes[rng.below(8)];
      const W& from = kTypes[2 + rng.below(6)];
      op.kind = to.reg;
      // .sat only where the destination cannot hold every source value (ptxas rejects the rest).
      auto width = [](const char* t) { return std::atoi(t + 1); };
      bool toSigned = to.name[0] == 's', fromSigned = from.name[0] == 's';
      bool contains = (toSigned == fromSigned && width(to.name) >= width(from.name)) ||
                      (toSigned && !fromSigned && width(to.name) > width(from.name));
      bool sat = !contains && rng.chance(15);
      op.text = fmt::format("cvt{}.{}.{}", sat ? ".sat" : "", to.name, from.name);
      op.ins = {pickReg(from.reg, maxU)};
      break;
    }
    case 5: {  // half precision
      switch (rng.below(5)) {
        case 0: op.kind = Kind::B16; op.text = fmt::format("cvt{}.f16.f32", kRound[rng.below(4)]);
          op.ins = {pickReg(Kind::F32, maxU)};
          break;
        case 1: op.kind = Kind::F32; op.text = "cvt.f32.f16"; op.ins = {pickReg(Kind::B16, maxU)}; break;
        case 2: op.kind = Kind::F64; op.text = "cvt.f64.f16"; op.ins = {pickReg(Kind::B16, maxU)}; break;
        case 3: op.kind = Kind::B16; op.text = fmt::format("cvt{}.f16.{}", kRound[rng.below(4)],
                                                            rng.pick<const char*>({"s32", "u32", "f64"}));
          op.ins = {pickReg(op.text.back() == '4' ? Kind::F64 : Kind::B32, maxU)};
          break;
        default: op.kind = Kind::B32; op.text = fmt::format("cvt{}.{}.f16", kRoundInt[rng.below(4)],
                                                            rng.pick<const char*>({"s32", "u32"}));
          op.ins = {pickReg(Kind::B16, maxU)};
          break;
      }
      break;
    }
    case 6: {  // bf16 and packed halves
      switch (rng.below(3)) {
        case 0: op.kind = Kind::B16; op.text = "cvt.rn.bf16.f32"; op.ins = {pickReg(Kind::F32, maxU)}; break;
        case 1: op.kind = Kind::F32; op.text = "cvt.f32.bf16"; op.ins = {pickReg(Kind::B16, maxU)}; break;
        default: op.kind = Kind::B32; op.text = "cvt.rn.f16x2.f32";
          op.ins = {pickReg(Kind::F32, maxU), pickReg(Kind::F32, maxU)};
          break;
      }
      break;
    }
    default: {  // reinterpretation
      if (rng.coin()) {
        op.kind = Kind::B32;
        op.text = "mov.b32";
        op.ins = {pickReg(Kind::F32, maxU)};
      } else if (rng.coin()) {
        op.kind = Kind::B64;
        op.text = "mov.b64";
        op.ins = {pickReg(Kind::F64, maxU)};
      } else {
        op.kind = Kind::F64;
        op.text = "mov.b64";
        op.ins = {pickReg(Kind::B64, maxU)};
      }
      break;
    }
  }
  return op;
}

Value Gen::emitOp(const Ctx& c, const Op& op, const Value* guard, bool negate) {
  Uni u = Uni::Const;
  for (const Value& v : op.ins) u = worst(u, v.uni);
  Value d;
  std::string prefix;
  if (guard) {
    d = existingDest(op.kind, worst(u, guard->uni), c);
    if (d) prefix = fmt::format("@{}{} ", negate ? "!" : "", guard->text);
  }
  if (!d) d = dest(op.kind, u, c);
  std::string text = fmt::format("{}{} \t{}", prefix, op.text, d.text);
  for (const Value& v : op.ins) text += ", " + v.text;
  emit(text);
  return d;
}

Value Gen::genPred(const Ctx& c, Uni maxU) {
  switch (rng.weighted({20, 6, 6, 4, 3, 2})) {
    case 0: {  // compare
      Kind k = static_cast<Kind>(1 + rng.weighted({2, 10, 4, 4, 2}));
      const char* type;
      const char* cmp;
      bool isFloat = k == Kind::F32 || k == Kind::F64;
      if (isFloat) {
        cmp = rng.pick<const char*>({"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                                     "num", "nan"});
        type = k == Kind::F32 ? "f32" : "f64";
      } else {
        switch (rng.below(3)) {
          case 0:
            cmp = rng.pick<const char*>({"eq", "ne", "lt", "le", "gt", "ge"});
            type = k == Kind::B16 ? "s16" : (k == Kind::B32 ? "s32" : "s64");
            break;
          case 1:
            cmp = rng.pick<const char*>({"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"});
            type = k == Kind::B16 ? "u16" : (k == Kind::B32 ? "u32" : "u64");
            break;
          default:
            cmp = rng.pick<const char*>({"eq", "ne"});
            type = k == Kind::B16 ? "b16" : (k == Kind::B32 ? "b32" : "b64");
            break;
        }
      }
      Value a = pickReg(k, maxU);
      Value b = pick(k, maxU);
      Uni u = worst(a.uni, b.uni);
      std::string comb;
      if (rng.chance(20)) {
        Value q = pickReg(Kind::Pred, maxU);
        u = worst(u, q.uni);
        comb = fmt::format(".{}", rng.pick<const char*>({"and", "or", "xor"}));
        Value d = dest(Kind::Pred, u, c);
        emit(fmt::format("setp.{}{}.{} \t{}, {}, {}, {}{}", cmp, comb, type, d.text, a.text, b.text,
                         rng.chance(30) ? "!" : "", q.text));
        return d;
      }
      Value d = dest(Kind::Pred, u, c);
      emit(fmt::format("setp.{}.{} \t{}, {}, {}", cmp, type, d.text, a.text, b.text));
      return d;
    }
    case 1: {  // and/or/xor
      Value a = pickReg(Kind::Pred, maxU), b = pickReg(Kind::Pred, maxU);
      Value d = dest(Kind::Pred, worst(a.uni, b.uni), c);
      emit(fmt::format("{}.pred \t{}, {}, {}", rng.pick<const char*>({"and", "or", "xor"}), d.text, a.text, b.text));
      return d;
    }
    case 2: {
      Value a = pickReg(Kind::Pred, maxU);
      Value d = dest(Kind::Pred, a.uni, c);
      emit(fmt::format("{}.pred \t{}, {}", rng.pick<const char*>({"not", "mov"}), d.text, a.text));
      return d;
    }
    case 3: {  // two results at once
      Value a = pickReg(Kind::B32, maxU), b = pick(Kind::B32, maxU);
      Uni u = worst(a.uni, b.uni);
      Value d1 = dest(Kind::Pred, u, c, 0), d2 = dest(Kind::Pred, u, c, 0);
      emit(fmt::format("setp.{}.s32 \t{}|{}, {}, {}", rng.pick<const char*>({"lt", "ge", "eq", "gt"}), d1.text, d2.text,
                       a.text, b.text));
      return d1;
    }
    case 4: {
      bool f64 = rng.chance(30);
      Value a = pickReg(f64 ? Kind::F64 : Kind::F32, maxU);
      Value d = dest(Kind::Pred, a.uni, c);
      emit(fmt::format("testp.{}.{} \t{}, {}",
                       rng.pick<const char*>({"finite", "infinite", "number", "notanumber", "normal", "subnormal"}),
                       f64 ? "f64" : "f32", d.text, a.text));
      return d;
    }
    default: {  // half compare
      Value a = pickReg(Kind::B16, maxU), b = pickReg(Kind::B16, maxU);
      Value d = dest(Kind::Pred, worst(a.uni, b.uni), c);
      emit(fmt::format("setp.{}.f16 \t{}, {}, {}", rng.pick<const char*>({"lt", "ge", "equ", "ne", "gtu"}), d.text,
                       a.text, b.text));
      return d;
    }
  }
}

// Instructions with two results: carry chains, pack/unpack.
void Gen::genMultiResult(const Ctx& c, Uni maxU) {
  switch (rng.below(4)) {
    case 0: {  // 64-bit add out of 32-bit halves through the carry flag
      Value a = pickReg(Kind::B32, maxU), b = pick(Kind::B32, maxU), x = pickReg(Kind::B32, maxU),
            y = pick(Kind::B32, maxU);
      Uni u = worst(worst(a.uni, b.uni), worst(x.uni, y.uni));
      const char* op = rng.coin() ? "add" : "sub";
      Value lo = dest(Kind::B32, u, c, 0), hi = dest(Kind::B32, u, c, 0);
      emit(fmt::format("{}.cc.u32 \t{}, {}, {}", op, lo.text, a.text, b.text));
      emit(fmt::format("{}c.u32 \t{}, {}, {}", op, hi.text, x.text, y.text));
      shape("arith.carry");
      break;
    }
    case 1: {  // pack two halves
      Value a = pickReg(Kind::B32, maxU), b = pickReg(Kind::B32, maxU);
      Value d = dest(Kind::B64, worst(a.uni, b.uni), c);
      emit(fmt::format("mov.b64 \t{}, {{{}, {}}}", d.text, a.text, b.text));
      break;
    }
    case 2: {  // unpack
      Value a = pickReg(Kind::B64, maxU);
      Value lo = dest(Kind::B32, a.uni, c, 0), hi = dest(Kind::B32, a.uni, c, 0);
      emit(fmt::format("mov.b64 \t{{{}, {}}}, {}", lo.text, hi.text, a.text));
      break;
    }
    default: {  // two b16 halves of a b32
      if (rng.coin()) {
        Value a = pickReg(Kind::B32, maxU);
        Value lo = dest(Kind::B16, a.uni, c, 0), hi = dest(Kind::B16, a.uni, c, 0);
        emit(fmt::format("mov.b32 \t{{{}, {}}}, {}", lo.text, hi.text, a.text));
      } else {
        Value a = pickReg(Kind::B16, maxU), b = pickReg(Kind::B16, maxU);
        Value d = dest(Kind::B32, worst(a.uni, b.uni), c);
        emit(fmt::format("mov.b32 \t{}, {{{}, {}}}", d.text, a.text, b.text));
      }
      break;
    }
  }
}

void Gen::genArith(const Ctx& c) {
  Uni maxU = randomLevel(c);
  switch (rng.weighted({40, 12, 5, 14, 7, 4, 12, 14, 4, 2})) {
    case 0: emitOp(c, opInt32(maxU)); break;
    case 1: emitOp(c, opInt64(maxU)); break;
    case 2: emitOp(c, opInt16(maxU)); break;
    case 3: emitOp(c, opF32(maxU)); break;
    case 4: emitOp(c, opF64(maxU)); break;
    case 5: emitOp(c, opHalf(maxU)); break;
    case 6: emitOp(c, opConvert(maxU)); break;
    case 7: genPred(c, maxU); break;
    case 8: genMultiResult(c, maxU); break;
    default: {  // special registers and WARP_SZ
      if (warpSzKernel && rng.chance(40)) {
        Value d = dest(Kind::B32, Uni::Const, c);
        emit(fmt::format("mov.u32 \t{}, WARP_SZ", d.text));
        usesWarpSz = true;
        shape("warp_sz");
        break;
      }
      struct S {
        const char* name;
        Uni uni;
      };
      static const S kSpecial[] = {{"%ntid.x", Uni::Cta},        {"%nctaid.x", Uni::Cta},
                                   {"%ctaid.x", Uni::Cta},       {"%laneid", Uni::Div},
                                   {"%lanemask_lt", Uni::Div},   {"%lanemask_ge", Uni::Div},
                                   {"%lanemask_eq", Uni::Div},   {"%tid.x", Uni::Div},
                                   {"%dynamic_smem_size", Uni::Cta}, {"%ntid.y", Uni::Cta}};
      const S& s = kSpecial[rng.below(sizeof kSpecial / sizeof kSpecial[0])];
      if (s.uni > maxU) break;
      Value d = dest(Kind::B32, s.uni, c);
      emit(fmt::format("mov.u32 \t{}, {}", d.text, s.name));
      break;
    }
  }
}

void Gen::genGuarded(const Ctx& c) {
  // An instruction that is already predicated: what if-conversion has to compose with.
  Uni maxU = randomLevel(c);
  Value g = pickReg(Kind::Pred, maxU);
  bool neg = rng.chance(40);
  Op op;
  switch (rng.weighted({10, 4, 3, 3, 2})) {
    case 0: op = opInt32(maxU); break;
    case 1: op = opF32(maxU); break;
    case 2: op = opInt64(maxU); break;
    case 3: {
      Kind k = rng.pick<Kind>({Kind::B32, Kind::F32, Kind::B64, Kind::Pred});
      op.kind = k;
      op.text = k == Kind::Pred ? "mov.pred" : (k == Kind::B64 ? "mov.b64" : (k == Kind::F32 ? "mov.f32" : "mov.b32"));
      op.ins = {pick(k, maxU, k != Kind::Pred)};
      break;
    }
    default: op = opF64(maxU); break;
  }
  emitOp(c, op, &g, neg);
  shape("straight.guarded");
  // If/else-heavy kernels: now and then the same instruction under the other sense too (what
  // predication makes of a diamond whose sides share an instruction; commoning merges them).
  const std::string& last = fn_->lines.back();
  if (opts.ifElseHeavy && rng.chance(30) && last.rfind("\t@", 0) == 0) {
    std::string other = last[2] == '!' ? "\t@" + last.substr(3) : "\t@!" + last.substr(2);
    fn_->lines.push_back(other);
    ++fn_->instructions;
    shape("straight.guarded.both-senses");
  }
}

void Gen::genSelect(const Ctx& c) {
  Uni maxU = randomLevel(c);
  Kind k = rng.pick<Kind>({Kind::B32, Kind::B32, Kind::B64, Kind::F32, Kind::F64, Kind::B16});
  const char* type = k == Kind::B32 ? rng.pick<const char*>({"b32", "s32", "u32"})
                     : k == Kind::B64 ? "b64"
                     : k == Kind::F32 ? "f32"
                     : k == Kind::F64 ? "f64"
                                      : "b16";
  Op op;
  op.kind = k;
  op.text = fmt::format("selp.{}", type);
  op.ins = {pickReg(k, maxU), pick(k, maxU), pickReg(Kind::Pred, maxU)};
  emitOp(c, op);
  shape("straight.selp");
}

Value Gen::genCond(const Ctx& c, Uni want) {
  (void)c;
  // Already-computed predicate variables of the right level, sometimes.
  if (rng.chance(20)) {
    Value p = pickExact(Kind::Pred, want);
    if (p.uni <= want && !(want == Uni::Div && p.uni != Uni::Div)) return p;
  }
  Value a, b;
  if (want == Uni::Const) {
    Value x = pickReg(Kind::B32, Uni::Div);
    Value p = newReg(Kind::Pred, Uni::Const);
    // Always true or always false, but only constant folding through the register sees it.
    if (rng.coin()) {
      emit(fmt::format("setp.{}.s32 \t{}, {}, {}", rng.pick<const char*>({"eq", "ne", "ge", "lt"}), p.text, x.text,
                       x.text));
    } else {
      Value k = materialize(immInt(Kind::B32, rng.range(-5, 5)));
      emit(fmt::format("setp.{}.s32 \t{}, {}, {}", rng.pick<const char*>({"eq", "ne", "ge", "lt"}), p.text, k.text,
                       rng.range(-5, 5)));
    }
    define(p);
    shape("cond.constant");
    return p;
  }
  a = want == Uni::Div ? pickExact(Kind::B32, Uni::Div) : pickReg(Kind::B32, want);
  b = pick(Kind::B32, want);
  if (want == Uni::Div && a.uni != Uni::Div && fn_->env.tid) a = fn_->env.tid;
  const char* cmp;
  const char* type;
  if (rng.coin()) {
    cmp = rng.pick<const char*>({"lt", "le", "gt", "ge", "eq", "ne"});
    type = "s32";
  } else {
    cmp = rng.pick<const char*>({"lo", "ls", "hi", "hs", "eq", "ne"});
    type = "u32";
  }
  // Lane and thread numbers are small: compare them with small bounds so both sides happen.
  if (a.text == fn_->env.tid.text || a.text == fn_->env.lane.text || a.text == fn_->env.gtid.text) {
    b = immInt(Kind::B32, rng.range(0, a.text == fn_->env.lane.text ? 31 : static_cast<int64_t>(threads())));
    if (rng.chance(30)) {
      // A parity or bit test of the thread number.
      Value t = newReg(Kind::B32, a.uni);
      emit(fmt::format("and.b32 \t{}, {}, {}", t.text, a.text, rng.pick<int64_t>({1, 2, 3, 4, 7, 8, 16, 32})));
      a = t;
      b = immInt(Kind::B32, 0);
      cmp = rng.pick<const char*>({"eq", "ne"});
    }
  }
  Value p = newReg(Kind::Pred, worst(a.uni, b.uni));
  emit(fmt::format("setp.{}.{} \t{}, {}, {}", cmp, type, p.text, a.text, b.text));
  define(p);
  // Mixtures: combine with a second condition.
  if (rng.chance(30)) {
    Uni other = want == Uni::Div ? rng.pick<Uni>({Uni::Cta, Uni::Warp, Uni::Div}) : want;
    Value q = pickReg(Kind::Pred, other);
    Value r = newReg(Kind::Pred, worst(p.uni, q.uni));
    const char* lop = rng.pick<const char*>({"and", "or", "xor"});
    emit(fmt::format("{}.pred \t{}, {}, {}", lop, r.text, p.text, q.text));
    define(r);
    shape(std::string("cond.") + lop);
    p = r;
    if (rng.chance(20)) {
      Value n = newReg(Kind::Pred, p.uni);
      emit(fmt::format("not.pred \t{}, {}", n.text, p.text));
      define(n);
      p = n;
    }
  }
  return p;
}

Value Gen::genIndex(const Ctx& c, Uni maxU, unsigned n, bool wantDivergent) {
  (void)c;
  Value src = wantDivergent ? pickExact(Kind::B32, Uni::Div) : pickReg(Kind::B32, maxU);
  if (src.uni > maxU) src = pickReg(Kind::B32, maxU);
  Value idx = newReg(Kind::B32, src.uni);
  if ((n & (n - 1)) == 0) {
    emit(fmt::format("and.b32 \t{}, {}, {}", idx.text, src.text, n - 1));
  } else {
    emit(fmt::format("rem.u32 \t{}, {}, {}", idx.text, src.text, n));
  }
  define(idx, false);
  return idx;
}

void Gen::foldScope(const Ctx& c) {
  if (fn_->scopes.empty() || !rng.chance(75)) return;
  std::vector<Value> temps;
  for (const Slot& slot : fn_->scopes.back()) {
    bool sink = false;
    for (const Value& v : fn_->sinks) sink = sink || v.text == slot.v.text;
    if (!sink && !slot.v.imm) temps.push_back(slot.v);
  }
  if (temps.empty()) return;
  unsigned n = static_cast<unsigned>(rng.range(1, 2));
  for (unsigned k = 0; k < n; ++k) {
    const Value& t = rng.pick(temps);
    Uni need = worst(t.uni, c.flow);
    std::vector<const Value*> into;
    for (const Value& v : fn_->sinks)
      if (v.kind == t.kind && v.uni >= need) into.push_back(&v);
    if (!into.empty() && rng.chance(60)) {
      const Value& v = *rng.pick(into);
      switch (t.kind) {
        case Kind::Pred: emit(fmt::format("xor.pred \t{}, {}, {}", v.text, v.text, t.text)); break;
        case Kind::B16: emit(fmt::format("xor.b16 \t{}, {}, {}", v.text, v.text, t.text)); break;
        case Kind::B32:
          emit(fmt::format("{} \t{}, {}, {}", rng.coin() ? "xor.b32" : "add.u32", v.text, v.text, t.text));
          break;
        case Kind::B64: emit(fmt::format("xor.b64 \t{}, {}, {}", v.text, v.text, t.text)); break;
        case Kind::F32: emit(fmt::format("add.rn.f32 \t{}, {}, {}", v.text, v.text, t.text)); break;
        case Kind::F64: emit(fmt::format("add.rn.f64 \t{}, {}, {}", v.text, v.text, t.text)); break;
      }
      continue;
    }
    if (!fn_->env.outp) continue;
    unsigned off = 8 * (kVarSlots + static_cast<unsigned>(rng.below(kScratchSlots)));
    switch (t.kind) {
      case Kind::Pred: {
        Value u = newReg(Kind::B32, t.uni);
        emit(fmt::format("selp.u32 \t{}, 1, 0, {}", u.text, t.text));
        emit(fmt::format("st.global.u32 \t[{}+{}], {}", fn_->env.outp.text, off, u.text));
        break;
      }
      case Kind::B16: emit(fmt::format("st.global.u16 \t[{}+{}], {}", fn_->env.outp.text, off, t.text)); break;
      case Kind::B32: emit(fmt::format("st.global.u32 \t[{}+{}], {}", fn_->env.outp.text, off, t.text)); break;
      case Kind::B64: emit(fmt::format("st.global.u64 \t[{}+{}], {}", fn_->env.outp.text, off, t.text)); break;
      case Kind::F32: emit(fmt::format("st.global.f32 \t[{}+{}], {}", fn_->env.outp.text, off, t.text)); break;
      case Kind::F64: emit(fmt::format("st.global.f64 \t[{}+{}], {}", fn_->env.outp.text, off, t.text)); break;
    }
  }
}

}  // namespace ptxopt::fuzz
