// Memory: loads from read-only inputs, .const and .global tables; stores to the thread's own
// out slots; local arrays; the thread's own shared row; CTA-wide exchanges (write, barrier,
// read, barrier) through shared, dynamic shared and global memory; warp-wide exchanges
// through bar.warp.sync; order-independent integer atomics; accumulator snapshots.
#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

Value Gen::address(const Value& base, const Value& index, unsigned scale) {
  Value off = newReg(Kind::B64, index.uni);
  if (rng.chance(70)) {
    emit(fmt::format("mul.wide.u32 \t{}, {}, {}", off.text, index.text, scale));
  } else {
    Value wide = newReg(Kind::B64, index.uni);
    emit(fmt::format("cvt.u64.u32 \t{}, {}", wide.text, index.text));
    unsigned sh = 0;
    while ((1u << sh) < scale) ++sh;
    emit(fmt::format("shl.b64 \t{}, {}, {}", off.text, wide.text, sh));
  }
  Value a = newReg(Kind::B64, worst(base.uni, index.uni));
  emit(fmt::format("add.s64 \t{}, {}, {}", a.text, base.text, off.text));
  return a;
}

namespace {

const char* loadHint(Random& rng) {
  switch (rng.weighted({60, 10, 6, 6, 6, 6, 6})) {
    case 1: return ".nc";
    case 2: return ".ca";
    case 3: return ".cg";
    case 4: return ".cs";
    case 5: return ".volatile";
    case 6: return ".relaxed.gpu";
    default: return "";
  }
}

}  // namespace

void Gen::genLoad(const Ctx& c) {
  const Env& e = fn_->env;
  Uni maxU = randomLevel(c);
  bool div = maxU == Uni::Div && rng.chance(70);
  auto spaceFor = [&](const char* hint) {
    std::string h = hint;
    if (h == ".volatile") return std::string("ld.volatile.global");
    if (h == ".relaxed.gpu") return std::string("ld.relaxed.gpu.global");
    return "ld.global" + h;
  };
  switch (rng.weighted({e.inI ? 30u : 0u, e.inF ? 12u : 0u, e.inD ? 6u : 0u, 10, 5, e.inI ? 6u : 0u,
                        fn_->kernel ? 3u : 0u})) {
    case 0: {  // the integer input: scalars of every width, v2, v4
      unsigned groups = inCount / 4;
      Value idx = genIndex(c, maxU, groups, div);
      Value a = address(e.inI, idx, 16);
      std::string ld = spaceFor(loadHint(rng));
      switch (rng.below(6)) {
        case 0: {
          Value d = dest(Kind::B32, idx.uni, c);
          emit(fmt::format("{}.{} \t{}, [{}+{}]", ld, rng.pick<const char*>({"u32", "s32", "b32"}), d.text, a.text,
                           4 * rng.below(4)));
          break;
        }
        case 1: {
          Value d1 = dest(Kind::B32, idx.uni, c), d2 = dest(Kind::B32, idx.uni, c, 0);
          emit(fmt::format("{}.v2.u32 \t{{{}, {}}}, [{}+{}]", ld, d1.text, d2.text, a.text, 8 * rng.below(2)));
          shape("mem.vector");
          break;
        }
        case 2: {
          Value d[4];
          for (Value& v : d) v = dest(Kind::B32, idx.uni, c, 0);
          emit(fmt::format("{}.v4.{} \t{{{}, {}, {}, {}}}, [{}]", ld, rng.pick<const char*>({"u32", "s32", "b32"}),
                           d[0].text, d[1].text, d[2].text, d[3].text, a.text));
          shape("mem.vector");
          break;
        }
        case 3: {
          Value d = dest(Kind::B64, idx.uni, c);
          emit(fmt::format("{}.{} \t{}, [{}+{}]", ld, rng.pick<const char*>({"u64", "s64", "b64"}), d.text, a.text,
                           8 * rng.below(2)));
          break;
        }
        case 4: {
          Value d = dest(Kind::B16, idx.uni, c);
          emit(fmt::format("{}.{} \t{}, [{}+{}]", ld, rng.pick<const char*>({"u16", "s16", "u8", "s8", "b16"}), d.text,
                           a.text, 2 * rng.below(8)));
          break;
        }
        default: {
          Value d = dest(Kind::B32, idx.uni, c);
          bool byte = rng.coin();
          emit(fmt::format("{}.{} \t{}, [{}+{}]", ld,
                           byte ? rng.pick<const char*>({"u8", "s8"}) : rng.pick<const char*>({"u16", "s16"}), d.text,
                           a.text, byte ? rng.below(16) : 2 * rng.below(8)));
          break;
        }
      }
      break;
    }
    case 1: {  // f32 input
      Value idx = genIndex(c, maxU, inFCount / 4, div);
      Value a = address(e.inF, idx, 16);
      std::string ld = spaceFor(loadHint(rng));
      if (rng.chance(30)) {
        Value d1 = dest(Kind::F32, idx.uni, c), d2 = dest(Kind::F32, idx.uni, c, 0);
        emit(fmt::format("{}.v2.f32 \t{{{}, {}}}, [{}+{}]", ld, d1.text, d2.text, a.text, 8 * rng.below(2)));
        shape("mem.vector");
      } else if (rng.chance(20)) {
        Value d[4];
        for (Value& v : d) v = dest(Kind::F32, idx.uni, c, 0);
        emit(fmt::format("{}.v4.f32 \t{{{}, {}, {}, {}}}, [{}]", ld, d[0].text, d[1].text, d[2].text, d[3].text,
                         a.text));
        shape("mem.vector");
      } else {
        Value d = dest(Kind::F32, idx.uni, c);
        emit(fmt::format("{}.f32 \t{}, [{}+{}]", ld, d.text, a.text, 4 * rng.below(4)));
      }
      break;
    }
    case 2: {  // f64 input
      Value idx = genIndex(c, maxU, inFCount / 2, div);
      Value a = address(e.inD, idx, 16);
      std::string ld = spaceFor(loadHint(rng));
      if (rng.chance(30)) {
        Value d1 = dest(Kind::F64, idx.uni, c), d2 = dest(Kind::F64, idx.uni, c, 0);
        emit(fmt::format("{}.v2.f64 \t{{{}, {}}}, [{}]", ld, d1.text, d2.text, a.text));
        shape("mem.vector");
      } else {
        Value d = dest(Kind::F64, idx.uni, c);
        emit(fmt::format("{}.f64 \t{}, [{}+{}]", ld, d.text, a.text, 8 * rng.below(2)));
      }
      break;
    }
    case 3: {  // .const tables
      if (rng.coin()) {
        unsigned k = static_cast<unsigned>(rng.below(constWords));
        Value d = dest(Kind::B32, Uni::Const, c);
        emit(fmt::format("ld.const.u32 \t{}, [fz_ctab+{}]", d.text, 4 * k));
      } else {
        bool wide = rng.chance(30);
        Value idx = genIndex(c, maxU, wide ? static_cast<unsigned>(constTable64.size()) : constWords, div);
        Value base = newReg(Kind::B64, Uni::Const);
        emit(fmt::format("mov.u64 \t{}, {}", base.text, wide ? "fz_ctab64" : "fz_ctab"));
        Value a = address(base, idx, wide ? 8 : 4);
        Value d = dest(wide ? Kind::B64 : Kind::B32, idx.uni, c);
        if (rng.chance(25)) {  // through a generic address
          Value g = newReg(Kind::B64, a.uni);
          emit(fmt::format("cvta.const.u64 \t{}, {}", g.text, a.text));
          emit(fmt::format("ld.{} \t{}, [{}]", wide ? "u64" : "u32", d.text, g.text));
          shape("mem.generic");
        } else {
          emit(fmt::format("ld.const.{} \t{}, [{}]", wide ? "u64" : "u32", d.text, a.text));
        }
      }
      shape("mem.const");
      break;
    }
    case 4: {  // a read-only .global table with an initializer
      Value idx = genIndex(c, maxU, static_cast<unsigned>(globalTable.size()), div);
      Value base = newReg(Kind::B64, Uni::Const);
      emit(fmt::format("mov.u64 \t{}, fz_gtab", base.text));
      Value a = address(base, idx, 4);
      Value d = dest(Kind::B32, idx.uni, c);
      emit(fmt::format("ld.global.u32 \t{}, [{}]", d.text, a.text));
      shape("mem.global_var");
      break;
    }
    case 5: {  // a generic load of the input
      Value idx = genIndex(c, maxU, inCount, div);
      Value a = address(e.inI, idx, 4);
      Value g = newReg(Kind::B64, a.uni);
      emit(fmt::format("cvta.global.u64 \t{}, {}", g.text, a.text));
      Value d = dest(Kind::B32, idx.uni, c);
      emit(fmt::format("ld.u32 \t{}, [{}]", d.text, g.text));
      shape("mem.generic");
      break;
    }
    default: {  // a kernel parameter, again
      Value d = dest(Kind::B32, Uni::Cta, c);
      emit(fmt::format("ld.param.u32 \t{}, [{}_param_{}]", d.text, fn_->name, rng.chance(50) ? 7 : 8));
      break;
    }
  }
}

void Gen::genStoreOut(const Ctx& c) {
  const Env& e = fn_->env;
  unsigned j = kVarSlots + static_cast<unsigned>(rng.below(kScratchSlots));
  unsigned jEven = kVarSlots + 2 * static_cast<unsigned>(rng.below(kScratchSlots / 2));
  std::string guard;
  if (rng.chance(25)) {
    Value p = pickReg(Kind::Pred, Uni::Div);
    guard = fmt::format("@{}{} ", rng.chance(30) ? "!" : "", p.text);
    shape("straight.guarded_store");
  }
  const char* hint = rng.pick<const char*>({"", "", "", "", ".wb", ".cg", ".cs", ".wt"});
  switch (rng.weighted({20, 8, 8, 6, 6, 4, 4, 4, 5})) {
    case 0:
      emit(fmt::format("{}st.global{}.{} \t[{}+{}], {}", guard, hint, rng.pick<const char*>({"u32", "b32", "s32"}),
                       e.outp.text, 8 * j, pickReg(Kind::B32, Uni::Div).text));
      break;
    case 1:
      emit(fmt::format("{}st.global{}.f32 \t[{}+{}], {}", guard, hint, e.outp.text, 8 * j,
                       pickReg(Kind::F32, Uni::Div).text));
      break;
    case 2: {
      bool f = rng.coin();
      emit(fmt::format("{}st.global{}.{} \t[{}+{}], {}", guard, hint,
                       f ? "f64" : rng.pick<const char*>({"u64", "b64", "s64"}), e.outp.text, 8 * j,
                       pickReg(f ? Kind::F64 : Kind::B64, Uni::Div).text));
      break;
    }
    case 3: {
      Value a = pickReg(Kind::B32, Uni::Div), b = pick(Kind::B32, Uni::Div);
      emit(fmt::format("{}st.global.v2.u32 \t[{}+{}], {{{}, {}}}", guard, e.outp.text, 8 * j, a.text, b.text));
      shape("mem.vector");
      break;
    }
    case 4: {
      Value v[4];
      for (Value& x : v) x = pickReg(Kind::B32, Uni::Div);
      emit(fmt::format("{}st.global.v4.b32 \t[{}+{}], {{{}, {}, {}, {}}}", guard, e.outp.text, 8 * jEven, v[0].text,
                       v[1].text, v[2].text, v[3].text));
      shape("mem.vector");
      break;
    }
    case 5: {
      bool f = rng.coin();
      Value a = pickReg(f ? Kind::F64 : Kind::B64, Uni::Div), b = pickReg(f ? Kind::F64 : Kind::B64, Uni::Div);
      emit(fmt::format("{}st.global.v2.{} \t[{}+{}], {{{}, {}}}", guard, f ? "f64" : "u64", e.outp.text, 8 * jEven,
                       a.text, b.text));
      shape("mem.vector");
      break;
    }
    case 6:
      emit(fmt::format("{}st.global.{} \t[{}+{}], {}", guard, rng.pick<const char*>({"u16", "b16", "u8"}),
                       e.outp.text, 8 * j + 2 * rng.below(4), pickReg(Kind::B16, Uni::Div).text));
      break;
    case 7: {  // a dynamic slot
      Value idx = genIndex(c, Uni::Div, 8, rng.coin());
      Value a = address(e.outp, idx, 8);
      emit(fmt::format("{}st.global.u32 \t[{}+{}], {}", guard, a.text, 8 * kVarSlots, pickReg(Kind::B32, Uni::Div).text));
      break;
    }
    default: {  // a generic store
      Value g = newReg(Kind::B64, Uni::Div);
      emit(fmt::format("cvta.global.u64 \t{}, {}", g.text, e.outp.text));
      emit(fmt::format("{}st.u32 \t[{}+{}], {}", guard, g.text, 8 * j, pickReg(Kind::B32, Uni::Div).text));
      shape("mem.generic");
      break;
    }
  }
  shape("mem.store");
}

void Gen::genLocal(const Ctx& c) {
  const Env& e = fn_->env;
  if (!e.localBase) {
    genArith(c);
    return;
  }
  switch (rng.below(5)) {
    case 0: case 1: {
      Value idx = genIndex(c, Uni::Div, kLocalWords, rng.coin());
      Value a = address(e.localBase, idx, 4);
      if (rng.coin()) {
        emit(fmt::format("st.local.u32 \t[{}], {}", a.text, pickReg(Kind::B32, Uni::Div).text));
      } else {
        Value d = dest(Kind::B32, Uni::Div, c);
        emit(fmt::format("ld.local.u32 \t{}, [{}]", d.text, a.text));
      }
      break;
    }
    case 2: {  // vectors
      Value idx = genIndex(c, Uni::Div, kLocalWords / 4, rng.coin());
      Value a = address(e.localBase, idx, 16);
      if (rng.coin()) {
        Value d[4];
        for (Value& v : d) v = dest(Kind::B32, Uni::Div, c, 0);
        emit(fmt::format("ld.local.v4.u32 \t{{{}, {}, {}, {}}}, [{}]", d[0].text, d[1].text, d[2].text, d[3].text,
                         a.text));
      } else {
        emit(fmt::format("st.local.v2.u32 \t[{}+8], {{{}, {}}}", a.text, pickReg(Kind::B32, Uni::Div).text,
                         pickReg(Kind::B32, Uni::Div).text));
      }
      shape("mem.vector");
      break;
    }
    case 3: {  // through a generic address
      Value idx = genIndex(c, Uni::Div, kLocalWords / 2, false);
      Value a = address(e.localBase, idx, 8);
      Value g = newReg(Kind::B64, Uni::Div);
      emit(fmt::format("cvta.local.u64 \t{}, {}", g.text, a.text));
      if (rng.coin()) {
        emit(fmt::format("st.f32 \t[{}+4], {}", g.text, pickReg(Kind::F32, Uni::Div).text));
      } else {
        Value d = dest(Kind::B64, Uni::Div, c);
        emit(fmt::format("ld.u64 \t{}, [{}]", d.text, g.text));
      }
      shape("mem.generic");
      break;
    }
    default: {  // a fixed element
      unsigned k = static_cast<unsigned>(rng.below(kLocalWords));
      if (rng.coin()) {
        emit(fmt::format("st.local.f32 \t[fz_local+{}], {}", 4 * k, pickReg(Kind::F32, Uni::Div).text));
      } else {
        Value d = dest(Kind::F32, Uni::Div, c);
        emit(fmt::format("ld.local.f32 \t{}, [fz_local+{}]", d.text, 4 * k));
      }
      break;
    }
  }
  shape("mem.local");
}

namespace {

// Each global accumulator word has one operation, so its final value does not depend on the
// order of the atomics: 8 groups of 8 words.
struct AccGroup {
  const char* op;
  const char* type;
};
const AccGroup kAccGroups[8] = {{"add", "u32"}, {"and", "b32"}, {"or", "b32"},  {"xor", "b32"},
                                {"min", "u32"}, {"max", "u32"}, {"min", "s32"}, {"max", "s32"}};
const AccGroup kAcc64Groups[4] = {{"add", "u64"}, {"or", "b64"}, {"xor", "b64"}, {"max", "s64"}};
const AccGroup kShAccGroups[4] = {{"add", "u32"}, {"or", "b32"}, {"xor", "b32"}, {"max", "u32"}};

}  // namespace

void Gen::genAtomic(const Ctx& c) {
  const Env& e = fn_->env;
  Uni maxU = Uni::Div;
  switch (rng.weighted({e.acc ? 30u : 0u, e.acc64 ? 10u : 0u, usesShAcc ? 20u : 0u, 12, e.shRow ? 10u : 0u})) {
    case 0: {
      unsigned g = static_cast<unsigned>(rng.below(8));
      Value v = pick(Kind::B32, maxU);
      std::string addr;
      if (rng.coin()) {
        addr = fmt::format("{}+{}", e.acc.text, 4 * (8 * g + rng.below(8)));
      } else {
        Value idx = genIndex(c, Uni::Div, 8, rng.coin());
        Value a = address(e.acc, idx, 4);
        addr = fmt::format("{}+{}", a.text, 32 * g);
      }
      if (rng.coin()) {
        emit(fmt::format("red.global.{}.{} \t[{}], {}", kAccGroups[g].op, kAccGroups[g].type, addr, v.text));
      } else {
        Value sink = newReg(Kind::B32, Uni::Div);  // the old value depends on the order: never read
        emit(fmt::format("atom.global.{}.{} \t{}, [{}], {}", kAccGroups[g].op, kAccGroups[g].type, sink.text, addr,
                         v.text));
      }
      shape("atomic.global");
      break;
    }
    case 1: {
      unsigned g = static_cast<unsigned>(rng.below(4));
      Value v = pick(Kind::B64, maxU);
      std::string addr = fmt::format("{}+{}", e.acc64.text, 8 * (4 * g + rng.below(4)));
      if (rng.coin()) {
        emit(fmt::format("red.global.{}.{} \t[{}], {}", kAcc64Groups[g].op, kAcc64Groups[g].type, addr, v.text));
      } else {
        Value sink = newReg(Kind::B64, Uni::Div);
        emit(fmt::format("atom.global.{}.{} \t{}, [{}], {}", kAcc64Groups[g].op, kAcc64Groups[g].type, sink.text,
                         addr, v.text));
      }
      shape("atomic.global64");
      break;
    }
    case 2: {
      unsigned g = static_cast<unsigned>(rng.below(4));
      Value v = pick(Kind::B32, maxU);
      std::string addr = fmt::format("fz_shacc+{}", 4 * (2 * g + rng.below(2)));
      if (rng.coin()) {
        emit(fmt::format("red.shared.{}.{} \t[{}], {}", kShAccGroups[g].op, kShAccGroups[g].type, addr, v.text));
      } else {
        Value sink = newReg(Kind::B32, Uni::Div);
        emit(fmt::format("atom.shared.{}.{} \t{}, [{}], {}", kShAccGroups[g].op, kShAccGroups[g].type, sink.text, addr,
                         v.text));
      }
      shape("atomic.shared");
      break;
    }
    case 3: {  // the thread's own out slot: the old value is deterministic
      unsigned j = kVarSlots + static_cast<unsigned>(rng.below(kScratchSlots));
      Value v = pick(Kind::B32, maxU);
      Value d = dest(Kind::B32, Uni::Div, c);
      switch (rng.below(4)) {
        case 0: emit(fmt::format("atom.global.exch.b32 \t{}, [{}+{}], {}", d.text, e.outp.text, 8 * j, v.text)); break;
        case 1: emit(fmt::format("atom.global.cas.b32 \t{}, [{}+{}], {}, {}", d.text, e.outp.text, 8 * j,
                                 pick(Kind::B32, maxU).text, v.text));
          break;
        case 2: emit(fmt::format("atom.global.{}.u32 \t{}, [{}+{}], {}", rng.pick<const char*>({"inc", "dec"}), d.text,
                                 e.outp.text, 8 * j, v.text));
          break;
        default: emit(fmt::format("atom.global.add.u32 \t{}, [{}+{}], {}", d.text, e.outp.text, 8 * j, v.text)); break;
      }
      shape("atomic.own");
      break;
    }
    default: {  // the thread's own shared row
      Value v = pick(Kind::B32, maxU);
      Value d = dest(Kind::B32, Uni::Div, c);
      unsigned w = static_cast<unsigned>(rng.below(kRowWords));
      switch (rng.below(3)) {
        case 0: emit(fmt::format("atom.shared.exch.b32 \t{}, [{}+{}], {}", d.text, e.shRow.text, 4 * w, v.text)); break;
        case 1: emit(fmt::format("atom.shared.cas.b32 \t{}, [{}+{}], {}, {}", d.text, e.shRow.text, 4 * w,
                                 pick(Kind::B32, maxU).text, v.text));
          break;
        default: emit(fmt::format("atom.shared.{}.u32 \t{}, [{}+{}], {}", rng.pick<const char*>({"add", "max", "inc"}),
                                  d.text, e.shRow.text, 4 * w, v.text));
          break;
      }
      shape("atomic.own_shared");
      break;
    }
  }
}

void Gen::genOwnShared(const Ctx& c) {
  const Env& e = fn_->env;
  if (!e.shRow) {
    genArith(c);
    return;
  }
  unsigned w = static_cast<unsigned>(rng.below(kRowWords));
  switch (rng.below(5)) {
    case 0: emit(fmt::format("st.shared.u32 \t[{}+{}], {}", e.shRow.text, 4 * w, pickReg(Kind::B32, Uni::Div).text));
      break;
    case 1: {
      Value d = dest(Kind::B32, Uni::Div, c);
      emit(fmt::format("ld.shared.u32 \t{}, [{}+{}]", d.text, e.shRow.text, 4 * w));
      break;
    }
    case 2: {
      Value d[4];
      for (Value& v : d) v = dest(Kind::B32, Uni::Div, c, 0);
      emit(fmt::format("ld.shared.v4.u32 \t{{{}, {}, {}, {}}}, [{}]", d[0].text, d[1].text, d[2].text, d[3].text,
                       e.shRow.text));
      shape("mem.vector");
      break;
    }
    case 3: {
      emit(fmt::format("st.shared.v2.f32 \t[{}+{}], {{{}, {}}}", e.shRow.text, 8 * (w / 2),
                       pickReg(Kind::F32, Uni::Div).text, pickReg(Kind::F32, Uni::Div).text));
      shape("mem.vector");
      break;
    }
    default: {  // generic address of the row
      Value wide = newReg(Kind::B64, Uni::Div);
      emit(fmt::format("cvt.u64.u32 \t{}, {}", wide.text, e.shRow.text));
      Value g = newReg(Kind::B64, Uni::Div);
      emit(fmt::format("cvta.shared.u64 \t{}, {}", g.text, wide.text));
      if (rng.coin()) {
        emit(fmt::format("st.u32 \t[{}+{}], {}", g.text, 4 * w, pickReg(Kind::B32, Uni::Div).text));
      } else {
        Value d = dest(Kind::B32, Uni::Div, c);
        emit(fmt::format("ld.u32 \t{}, [{}+{}]", d.text, g.text, 4 * w));
      }
      shape("mem.generic");
      break;
    }
  }
  shape("mem.shared_own");
}

// Reads word w of thread `thread`'s shared exchange row into a fresh or reused register.
void Gen::readSharedRow(const Value& thread, unsigned w, const Ctx& c) {
  Value off = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("shl.b32 \t{}, {}, 4", off.text, thread.text));
  Value base = newReg(Kind::B32, Uni::Const);
  emit(fmt::format("mov.u32 \t{}, fz_sh", base.text));
  Value a = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("add.s32 \t{}, {}, {}", a.text, base.text, off.text));
  Value d = dest(Kind::B32, Uni::Div, c);
  emit(fmt::format("ld.shared.u32 \t{}, [{}+{}]", d.text, a.text, 4 * w));
}

// The partner thread of an exchange: a permutation of the CTA, or anything in range.
Value Gen::partnerThread() {
  const Env& e = fn_->env;
  unsigned B = threads();
  Value p = newReg(Kind::B32, Uni::Div);
  switch (rng.below(5)) {
    case 0:
      if ((B & (B - 1)) == 0) {
        emit(fmt::format("xor.b32 \t{}, {}, {}", p.text, e.tid.text, rng.range(1, B - 1)));
      } else {
        Value t = newReg(Kind::B32, Uni::Div);
        emit(fmt::format("xor.b32 \t{}, {}, {}", t.text, e.tid.text, rng.range(1, 31)));
        emit(fmt::format("rem.u32 \t{}, {}, {}", p.text, t.text, B));
      }
      break;
    case 1: {
      Value t = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("add.s32 \t{}, {}, {}", t.text, e.tid.text, rng.range(1, B - 1)));
      emit(fmt::format("rem.u32 \t{}, {}, {}", p.text, t.text, B));
      break;
    }
    case 2:
      emit(fmt::format("sub.s32 \t{}, {}, {}", p.text, B - 1, e.tid.text));
      break;
    case 3: {  // data-dependent
      Value x = pickReg(Kind::B32, Uni::Div);
      emit(fmt::format("rem.u32 \t{}, {}, {}", p.text, x.text, B));
      break;
    }
    default: {  // the same lane of the next warp
      Value t = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("add.s32 \t{}, {}, 32", t.text, e.tid.text));
      emit(fmt::format("rem.u32 \t{}, {}, {}", p.text, t.text, B));
      break;
    }
  }
  return p;
}

void Gen::genExchange(const Ctx& c) {
  const Env& e = fn_->env;
  if (!barriersOk(c) || !e.shRow) {
    genArith(c);
    return;
  }
  unsigned B = threads();
  auto partner = [&]() { return partnerThread(); };
  switch (rng.weighted({50, e.scr ? 15u : 0u, usesDynShared ? 15u : 0u, 20})) {
    case 0: {  // shared rows
      unsigned w = static_cast<unsigned>(rng.below(kRowWords));
      emit(fmt::format("st.shared.u32 \t[{}+{}], {}", e.shRow.text, 4 * w, pickReg(Kind::B32, Uni::Div).text));
      barrier();
      readSharedRow(partner(), w, c);
      barrier();
      shape("exchange.shared");
      break;
    }
    case 1: {  // global scratch, one word per thread
      Value mine = address(e.scr, e.gtid, 4);
      emit(fmt::format("st.global.u32 \t[{}], {}", mine.text, pickReg(Kind::B32, Uni::Div).text));
      barrier();
      Value p = partner();
      Value g = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("add.s32 \t{}, {}, {}", g.text, e.ctaBase.text, p.text));
      Value a = address(e.scr, g, 4);
      Value d = dest(Kind::B32, Uni::Div, c);
      emit(fmt::format("ld.global.u32 \t{}, [{}]", d.text, a.text));
      barrier();
      shape("exchange.global");
      break;
    }
    case 2: {  // dynamic shared rows of dynRowWords words
      Value base = newReg(Kind::B64, Uni::Const);
      emit(fmt::format("mov.u64 \t{}, fz_dsh", base.text));
      Value mine = address(base, e.tid, 4 * dynRowWords);
      unsigned w = static_cast<unsigned>(rng.below(dynRowWords));
      emit(fmt::format("st.shared.f32 \t[{}+{}], {}", mine.text, 4 * w, pickReg(Kind::F32, Uni::Div).text));
      barrier();
      Value p = partner();
      Value a = address(base, p, 4 * dynRowWords);
      Value d = dest(Kind::F32, Uni::Div, c);
      emit(fmt::format("ld.shared.f32 \t{}, [{}+{}]", d.text, a.text, 4 * w));
      barrier();
      shape("exchange.dynamic_shared");
      break;
    }
    default: {  // tree reduction: for (s = B/2; s > 0; s >>= 1) { if (tid < s) row[tid] += row[tid+s]; bar }
      unsigned w = static_cast<unsigned>(rng.below(kRowWords));
      emit(fmt::format("st.shared.u32 \t[{}+{}], {}", e.shRow.text, 4 * w, pickReg(Kind::B32, Uni::Div).text));
      barrier();
      pushScope();
      Value s = newReg(Kind::B32, Uni::Const);
      emit(fmt::format("mov.u32 \t{}, {}", s.text, B / 2));
      std::string head = newLabel("tree"), skip = newLabel("tree_skip");
      label(head);
      Value p = newReg(Kind::Pred, Uni::Div);
      emit(fmt::format("setp.ge.u32 \t{}, {}, {}", p.text, e.tid.text, s.text));
      emit(fmt::format("@{} bra \t{}", p.text, skip));
      Value x = newReg(Kind::B32, Uni::Div), y = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("ld.shared.u32 \t{}, [{}+{}]", x.text, e.shRow.text, 4 * w));
      Value off = newReg(Kind::B32, Uni::Cta);
      emit(fmt::format("shl.b32 \t{}, {}, 4", off.text, s.text));
      Value a = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("add.s32 \t{}, {}, {}", a.text, e.shRow.text, off.text));
      emit(fmt::format("ld.shared.u32 \t{}, [{}+{}]", y.text, a.text, 4 * w));
      emit(fmt::format("{}.{} \t{}, {}, {}", rng.pick<const char*>({"add", "max", "min"}),
                       rng.pick<const char*>({"s32", "u32"}), x.text, x.text, y.text));
      emit(fmt::format("st.shared.u32 \t[{}+{}], {}", e.shRow.text, 4 * w, x.text));
      label(skip);
      barrier();
      emit(fmt::format("shr.u32 \t{}, {}, 1", s.text, s.text));
      Value q = newReg(Kind::Pred, Uni::Cta);
      emit(fmt::format("setp.ne.s32 \t{}, {}, 0", q.text, s.text));
      emit(fmt::format("@{} bra.uni \t{}", q.text, head));
      popScope();
      // Everybody reads thread 0's total: a CTA-uniform value.
      Value d = dest(Kind::B32, Uni::Cta, c);
      emit(fmt::format("ld.shared.u32 \t{}, [fz_sh+{}]", d.text, 4 * w));
      barrier();
      shape("exchange.tree_reduce");
      break;
    }
  }
}

// A CTA-wide exchange whose rows asynchronous copies fill (GeneratorOptions::asyncCopies): the
// thread's shared row gets 16 bytes of the integer input by cp.async -- one .cg copy, a .ca copy
// with a src-size constant or register (the rest zero-filled), a .cg copy with an ignore-src
// predicate (zeros), or an 8-byte and two 4-byte .ca copies --, the group is committed and
// waited for (wait_group, wait_all, or the phase of the thread's own mbarrier that
// cp.async.mbarrier.arrive.noinc completes), and only then does the barrier make it visible to
// the partner. The barrier after the wait and the one after the read are both needed (a
// landing, then a row the next exchange overwrites): dead-sync must keep them; ptxrun reports a
// race without either.
void Gen::genAsyncExchange(const Ctx& c) {
  const Env& e = fn_->env;
  if (!barriersOk(c) || !e.shRow || !e.inI) {
    genArith(c);
    return;
  }
  Value idx = genIndex(c, Uni::Div, inCount / 4, rng.chance(70));
  Value src = address(e.inI, idx, 16);
  const std::string row = e.shRow.text;
  switch (rng.below(5)) {
    case 0:
      emit(fmt::format("cp.async.cg.shared.global \t[{}], [{}], 16", row, src.text));
      break;
    case 1:
      emit(fmt::format("cp.async.ca.shared.global{} \t[{}], [{}], 16, {}", rng.chance(50) ? ".L2::128B" : "", row,
                       src.text, rng.below(17)));
      break;
    case 2: {
      Value n = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("and.b32 \t{}, {}, 15", n.text, pickReg(Kind::B32, Uni::Div).text));
      emit(fmt::format("cp.async.cg.shared.global \t[{}], [{}], 16, {}", row, src.text, n.text));
      break;
    }
    case 3: {
      Value t = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("and.b32 \t{}, {}, {}", t.text, pickReg(Kind::B32, Uni::Div).text,
                       rng.pick<unsigned>({1, 2, 4})));
      Value p = newReg(Kind::Pred, Uni::Div);
      emit(fmt::format("setp.ne.u32 \t{}, {}, 0", p.text, t.text));
      emit(fmt::format("cp.async.cg.shared.global \t[{}], [{}], 16, {}", row, src.text, p.text));
      break;
    }
    default:
      emit(fmt::format("cp.async.ca.shared.global \t[{}], [{}], 8", row, src.text));
      emit(fmt::format("cp.async.ca.shared.global \t[{}+8], [{}+8], 4", row, src.text));
      emit(fmt::format("cp.async.ca.shared.global \t[{}+12], [{}+12], 4", row, src.text));
      break;
  }
  switch (rng.below(4)) {
    case 0:
      emit("cp.async.commit_group");
      emit("cp.async.wait_group \t0");
      break;
    case 1:
      emit("cp.async.wait_all");
      break;
    case 2:  // the copies' group, an empty one after it, and a wait that leaves the empty one
      emit("cp.async.commit_group");
      emit("cp.async.commit_group");
      emit("cp.async.wait_group \t1");
      break;
    default: {
      // The copies land with the phase of the thread's own mbarrier (fz_mbar, one per thread,
      // initialized afresh for each exchange): cp.async.mbarrier.arrive.noinc is its one
      // arrival, and the thread waits for phase 0 with try_wait.
      Value bar = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("mov.u32 \t{}, fz_mbar", bar.text));
      emit(fmt::format("mad.lo.s32 \t{}, {}, 8, {}", bar.text, e.tid.text, bar.text));
      emit(fmt::format("mbarrier.init.shared.b64 \t[{}], 1", bar.text));
      emit(fmt::format("cp.async.mbarrier.arrive.noinc.shared.b64 \t[{}]", bar.text));
      Value done = newReg(Kind::Pred, Uni::Div);
      const std::string wait = newLabel("mbar");
      label(wait);
      emit(fmt::format("mbarrier.try_wait.parity.shared.b64 \t{}, [{}], 0", done.text, bar.text));
      emit(fmt::format("@!{} bra \t{}", done.text, wait));
      shape("exchange.cp_async.mbarrier");
      break;
    }
  }
  barrier();
  readSharedRow(partnerThread(), static_cast<unsigned>(rng.below(kRowWords)), c);
  barrier();
  shape("exchange.cp_async");
}

// The two sides of `@p bra`, joined again: each may store a value to the thread's row word `w`
// (with `storePercent` percent chance) and then executes `sync`.
void Gen::emitSplitSync(const Value& p, unsigned w, unsigned storePercent, const std::string& sync, const char* hint) {
  const Env& e = fn_->env;
  std::string other = newLabel(hint), join = newLabel((std::string(hint) + "_join").c_str());
  auto side = [&]() {
    if (rng.chance(storePercent))
      emit(fmt::format("st.shared.u32 \t[{}+{}], {}", e.shRow.text, 4 * w, pickReg(Kind::B32, Uni::Div).text));
    emit(sync);
  };
  emit(fmt::format("@{} bra \t{}", p.text, other));
  side();
  emit(fmt::format("bra.uni \t{}", join));
  label(other);
  side();
  label(join);
}

// A CTA-wide exchange whose first barrier is split over the two sides of a branch that is the
// same in every lane of a warp but not in every warp (on the warp number, or on a vote): each
// warp waits at its side's barrier, and the two pair with each other (barrier.sync, not the
// .aligned bar.sync, so that the warps may wait at different instructions). Either side may
// write the thread's row word; the partner's word is read after the join and a barrier ends
// the exchange. A pass that judged these barriers one side at a time, by warp-level
// uniformity, would find nothing above one of them.
void Gen::genSplitExchange(const Ctx& c) {
  const Env& e = fn_->env;
  unsigned B = threads();
  if (!barriersOk(c) || !e.shRow || !e.warp || B <= 32) {
    genExchange(c);
    return;
  }
  unsigned warps = B / 32, w = static_cast<unsigned>(rng.below(kRowWords));
  Value p = newReg(Kind::Pred, Uni::Warp);
  if (rng.coin()) {
    emit(fmt::format("setp.{}.u32 \t{}, {}, {}", rng.pick<const char*>({"lt", "ge", "eq", "ne"}), p.text, e.warp.text,
                     rng.range(0, warps - 1)));
  } else {
    Value q = newReg(Kind::Pred, Uni::Div);
    emit(fmt::format("setp.lt.u32 \t{}, {}, {}", q.text, e.tid.text, rng.range(1, B - 1)));
    Value m = warpMask(c);
    emit(fmt::format("vote.sync.{}.pred \t{}, {}, {}", rng.pick<const char*>({"any", "all"}), p.text, q.text, m.text));
  }
  emitSplitSync(p, w, 60, "barrier.sync \t0", "split");
  Value q = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("add.s32 \t{}, {}, {}", q.text, e.tid.text, rng.pick<unsigned>({32, B - 32, B / 2})));
  emit(fmt::format("rem.u32 \t{}, {}, {}", q.text, q.text, B));
  readSharedRow(q, w, c);
  barrier();
  shape("exchange.split_barrier");
}

void Gen::genWarpExchange(const Ctx& c) {
  const Env& e = fn_->env;
  if (!warpFull(c) || !e.shRow) {
    genArith(c);
    return;
  }
  unsigned w = static_cast<unsigned>(rng.below(kRowWords));
  const char* mask = rng.pick<const char*>({"-1", "0xFFFFFFFF", "0xffffffff"});
  bool split = rng.chance(30);
  if (!split) {
    emit(fmt::format("st.shared.u32 \t[{}+{}], {}", e.shRow.text, 4 * w, pickReg(Kind::B32, Uni::Div).text));
    emit(fmt::format("bar.warp.sync \t{}", mask));
  } else {
    // The first sync split over the two sides of a branch that splits the warp (sm_70 and
    // later: the lanes of a mask meet at any bar.warp.sync with that mask). Either side may
    // write the lane's word; a side that does not leaves the word the row had, which every
    // lane's own earlier writes decided.
    Value p = newReg(Kind::Pred, Uni::Div);
    emit(fmt::format("setp.{}.u32 \t{}, {}, {}", rng.pick<const char*>({"lt", "ge"}), p.text, e.lane.text, rng.range(1, 31)));
    emitSplitSync(p, w, 70, fmt::format("bar.warp.sync \t{}", mask), "wsplit");
  }
  // Partner lane in the same warp: (lane ^ k) or (lane + k) & 31.
  Value l = newReg(Kind::B32, Uni::Div);
  if (rng.coin()) {
    emit(fmt::format("xor.b32 \t{}, {}, {}", l.text, e.lane.text, rng.range(1, 31)));
  } else {
    Value t = newReg(Kind::B32, Uni::Div);
    emit(fmt::format("add.s32 \t{}, {}, {}", t.text, e.lane.text, rng.range(1, 31)));
    emit(fmt::format("and.b32 \t{}, {}, 31", l.text, t.text));
  }
  Value delta = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("sub.s32 \t{}, {}, {}", delta.text, l.text, e.lane.text));
  Value off = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("shl.b32 \t{}, {}, 4", off.text, delta.text));
  Value a = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("add.s32 \t{}, {}, {}", a.text, e.shRow.text, off.text));
  Value d = dest(Kind::B32, Uni::Div, c);
  emit(fmt::format("ld.shared.u32 \t{}, [{}+{}]", d.text, a.text, 4 * w));
  emit(fmt::format("bar.warp.sync \t{}", mask));
  shape(split ? "exchange.warp_split" : "exchange.warp");
}

void Gen::genAccSnapshot(const Ctx& c) {
  if (!barriersOk(c) || !usesShAcc) {
    genArith(c);
    return;
  }
  barrier();
  Value d = dest(Kind::B32, Uni::Cta, c);
  emit(fmt::format("ld.shared.u32 \t{}, [fz_shacc+{}]", d.text, 4 * rng.below(kShAcc)));
  barrier();
  shape("exchange.acc_snapshot");
}

}  // namespace ptxopt::fuzz
