// Switches: setp.eq + @p bra cascades, balanced compare trees (setp.gt/lt splits, as cicc
// writes them) and brx.idx jump tables (dense and sparse, with and without a default, the
// index masked into range or guarded by a bounds check). With switchHeavy also: more cases,
// 16-bit selectors, negative case values, unsigned splits, LLVM-style range checks for runs of
// values with one target (`add %t, %s, -lo; setp.lt.u32 %p, %t, len`), and bodies that only
// assign constants to registers the switch's block set first (the value-table shape), and
// cases of switches the warp cannot split at that leave the kernel through a shared block
// that stores one value and returns (the function end switch-opt copies into cases). Every
// draw of those sits behind the option, so the default kernels keep their bytes.
#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

namespace {

struct Case {
  int64_t value;
  std::string label;
};

// Consecutive values with one target.
struct Run {
  int64_t lo, hi;
  std::string label;
};

std::vector<Run> runsOf(const std::vector<Case>& cases) {
  std::vector<Run> runs;
  for (const Case& k : cases) {
    if (!runs.empty() && runs.back().hi + 1 == k.value && runs.back().label == k.label) {
      runs.back().hi = k.value;
    } else {
      runs.push_back({k.value, k.value, k.label});
    }
  }
  return runs;
}

}  // namespace

void Gen::genSwitch(const Ctx& c, unsigned budget) {
  const bool heavy = opts.switchHeavy;
  unsigned ncases = static_cast<unsigned>(heavy ? rng.range(2, 16) : rng.range(2, 10));
  bool sparse = rng.chance(35);
  unsigned span = sparse ? ncases * static_cast<unsigned>(rng.range(2, 4)) : ncases;
  std::vector<int64_t> values;
  if (sparse) {
    std::vector<int64_t> all;
    for (unsigned v = 0; v < span; ++v) all.push_back(v);
    rng.shuffle(all);
    values.assign(all.begin(), all.begin() + ncases);
    std::sort(values.begin(), values.end());
  } else {
    for (unsigned v = 0; v < ncases; ++v) values.push_back(v);
  }
  bool hasDefault = rng.chance(60);
  int form = static_cast<int>(rng.weighted({35, 30, 35}));  // cascade, tree, brx.idx
  bool guardedBrx = form == 2 && rng.chance(40);
  // switchHeavy: bodies that only assign constants, range checks, 16-bit tests, unsigned
  // splits, negative shifts of the values.
  bool constants = heavy && rng.chance(50);
  bool ranges = heavy && form != 2 && rng.chance(50);
  bool narrow = heavy && form != 2 && rng.chance(25);
  bool unsignedSplits = heavy && form == 1 && rng.chance(30);
  bool negativeBase = heavy && form != 2 && rng.chance(40);
  // LLVM's bit tests (a cascade form): one shl of 1 by the selector (minus the first case),
  // then per target an and of its values' mask and a setp against 0.
  bool bitTests = heavy && form == 0 && !narrow && span <= 32 && rng.chance(30);
  // LLVM's constant cases (a plain or bit-test cascade): the second test's case assigns its
  // constants in the test block and branches to the join; every body then assigns all of them.
  bool llvmConstants = constants && form == 0 && (bitTests || !ranges) && ncases >= 2 && rng.chance(40);

  // The selector: in [0, selRange) by construction, or raw and bounds-checked (brx only).
  Uni want = condLevel(c);
  if (want == Uni::Const) want = Uni::Cta;
  Value x = want == Uni::Div ? pickExact(Kind::B32, Uni::Div) : pickReg(Kind::B32, want);
  unsigned selRange = span + (hasDefault ? static_cast<unsigned>(rng.range(0, 3)) : 0);
  Value sel = newReg(Kind::B32, x.uni);
  if (guardedBrx) {
    emit(fmt::format("add.s32 \t{}, {}, {}", sel.text, x.text, rng.range(-3, 3)));
  } else if ((selRange & (selRange - 1)) == 0 && rng.coin()) {
    emit(fmt::format("and.b32 \t{}, {}, {}", sel.text, x.text, selRange - 1));
  } else {
    emit(fmt::format("rem.u32 \t{}, {}, {}", sel.text, x.text, selRange));
  }
  define(sel, false);
  Ctx ic = c;
  ic.flow = worst(c.flow, sel.uni);
  ic.ifDepth = c.ifDepth + 1;
  // switchHeavy: cases of a switch on which the warp cannot split may leave the kernel through
  // a shared block after the epilogue that stores one value and returns (switch-opt copies such
  // an end into the cases of a jump table, `tail-limit`).
  bool caseExits = heavy && fn_->kernel && !c.noExit && ic.flow != Uni::Div && fn_->env.outp && rng.chance(30);
  bool exited = false;

  // The constants' registers, set in the switch's own block before the tests: a path that
  // does not assign one keeps this value.
  std::vector<Value> consts;
  auto constantOf = [&](Kind k) {
    switch (k) {
      case Kind::F32: {
        float f = static_cast<float>(rng.range(-4000, 4000)) / 8.0f;
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        return fmt::format("0f{:08X}", bits);
      }
      case Kind::B64: return fmt::format("{}", rng.range(-(int64_t(1) << 40), int64_t(1) << 40));
      default: return fmt::format("{}", rng.range(-1000, 1000));
    }
  };
  auto movType = [](Kind k) { return k == Kind::F32 ? "f32" : k == Kind::B64 ? "u64" : "u32"; };
  if (constants) {
    unsigned n = static_cast<unsigned>(rng.range(1, 3));
    for (unsigned k = 0; k < n; ++k) {
      Kind kind = std::array<Kind, 3>{Kind::B32, Kind::F32, Kind::B64}[rng.weighted({60, 25, 15})];
      Value r = newReg(kind, ic.flow);
      emit(fmt::format("mov.{} \t{}, {}", movType(kind), r.text, constantOf(kind)));
      define(r);
      consts.push_back(r);
    }
    shape("switch.constants");
  }
  // A 16-bit copy of the selector for the tests (cicc writes them for small selectors).
  if (narrow) {
    Value s16 = newReg(Kind::B16, sel.uni);
    emit(fmt::format("cvt.u16.u32 \t{}, {}", s16.text, sel.text));
    sel = s16;
    shape("switch.16bit");
  }
  const char* sTy = narrow ? "s16" : "s32";
  const char* uTy = narrow ? "u16" : "u32";
  const Kind selKind = narrow ? Kind::B16 : Kind::B32;
  // One test of a run: an equality for a single value, else a range check on the selector
  // minus the run's first value (unsigned: values below the run wrap to large numbers).
  auto testRun = [&](const Run& r, const Value& s, Uni uni, int64_t base) {
    Value p = newReg(Kind::Pred, uni);
    if (r.lo == r.hi) {
      emit(fmt::format("setp.eq.{} \t{}, {}, {}", sTy, p.text, s.text, r.lo + base));
      branch(p, false, r.label);
      return;
    }
    Value t = newReg(selKind, uni);
    if (rng.coin()) {
      emit(fmt::format("add.{} \t{}, {}, {}", sTy, t.text, s.text, -(r.lo + base)));
    } else {
      emit(fmt::format("sub.{} \t{}, {}, {}", sTy, t.text, s.text, r.lo + base));
    }
    int64_t len = r.hi - r.lo + 1;
    switch (rng.below(3)) {
      case 0:
        emit(fmt::format("setp.lt.{} \t{}, {}, {}", uTy, p.text, t.text, len));
        branch(p, false, r.label);
        break;
      case 1:
        emit(fmt::format("setp.le.{} \t{}, {}, {}", uTy, p.text, t.text, len - 1));
        branch(p, false, r.label);
        break;
      default:
        emit(fmt::format("setp.ge.{} \t{}, {}, {}", uTy, p.text, t.text, len));
        branch(p, true, r.label);
        break;
    }
  };

  // Case labels; neighbouring values share a body now and then.
  std::vector<Case> cases;
  std::vector<std::string> bodies;  // distinct labels in layout order
  for (size_t k = 0; k < values.size(); ++k) {
    if (!bodies.empty() && rng.chance(ranges ? 45 : 15)) {
      cases.push_back({values[k], bodies.back()});
    } else {
      bodies.push_back(newLabel("case"));
      cases.push_back({values[k], bodies.back()});
    }
  }
  std::string end = newLabel("sw_end");
  std::string def = hasDefault ? newLabel("sw_default") : end;
  bool uniSel = sel.uni <= Uni::Warp;

  switch (form) {
    case 0: {  // cascade, optionally on a shifted selector
      int64_t base = rng.chance(30) ? rng.range(1, 100) : 0;
      if (negativeBase && rng.coin()) base = -rng.range(1, 100);
      Value s = sel;
      if (base) {
        s = newReg(selKind, sel.uni);
        emit(fmt::format("add.{} \t{}, {}, {}", sTy, s.text, sel.text, base));
      }
      if (bitTests) {
        // Amounts outside 0..31 (a selector below the first case, or a default value past the
        // 32nd) shift the 1 out: no bit, the default.
        int64_t lo = rng.coin() ? values.front() : 0;
        Value amount = sel;
        if (lo) {
          amount = newReg(Kind::B32, sel.uni);
          emit(fmt::format("sub.s32 \t{}, {}, {}", amount.text, sel.text, lo));
        }
        Value bits = newReg(Kind::B32, sel.uni);
        if (rng.coin()) {
          Value one = newReg(Kind::B32, sel.uni);
          emit(fmt::format("mov.u32 \t{}, 1", one.text));
          emit(fmt::format("shl.b32 \t{}, {}, {}", bits.text, one.text, amount.text));
        } else {
          emit(fmt::format("shl.b32 \t{}, 1, {}", bits.text, amount.text));
        }
        std::vector<std::pair<std::string, uint32_t>> masks;  // per target, in layout order
        for (const Case& k : cases) {
          if (masks.empty() || masks.back().first != k.label) masks.push_back({k.label, 0});
          masks.back().second |= 1u << unsigned(k.value - lo);
        }
        if (rng.chance(30)) rng.shuffle(masks);
        for (size_t j = 0; j < masks.size(); ++j) {
          const uint32_t mask = masks[j].second;
          std::string target = masks[j].first;
          if (llvmConstants && j == 1) {  // as in a plain cascade below
            for (const Value& r : consts) emit(fmt::format("mov.{} \t{}, {}", movType(r.kind), r.text, constantOf(r.kind)));
            target = end;
            shape("switch.llvm-constants");
          }
          Value t = newReg(Kind::B32, sel.uni);
          emit(fmt::format("and.b32 \t{}, {}, {}", t.text, bits.text, mask));
          Value p = newReg(Kind::Pred, sel.uni);
          bool ne = rng.chance(75);
          emit(fmt::format("setp.{}.s32 \t{}, {}, 0", ne ? "ne" : "eq", p.text, t.text));
          branch(p, !ne, target);
        }
        shape("switch.bit-tests");
      } else if (ranges) {
        std::vector<Run> runs = runsOf(cases);
        if (rng.chance(30)) rng.shuffle(runs);
        for (const Run& r : runs) testRun(r, s, sel.uni, base);
        shape("switch.ranges");
      } else {
        std::vector<Case> order = cases;
        if (rng.chance(30)) rng.shuffle(order);
        for (size_t j = 0; j < order.size(); ++j) {
          const Case& k = order[j];
          std::string target = k.label;
          if (llvmConstants && j == 1) {
            // LLVM's form: the case's constants assigned in its test block, which branches
            // straight to the join.
            for (const Value& r : consts) emit(fmt::format("mov.{} \t{}, {}", movType(r.kind), r.text, constantOf(r.kind)));
            target = end;
            shape("switch.llvm-constants");
          }
          Value p = newReg(Kind::Pred, sel.uni);
          if (rng.chance(80)) {
            emit(fmt::format("setp.eq.{} \t{}, {}, {}", sTy, p.text, s.text, k.value + base));
            branch(p, false, target);
          } else {
            emit(fmt::format("setp.ne.{} \t{}, {}, {}", sTy, p.text, s.text, k.value + base));
            branch(p, true, target);
          }
        }
      }
      jump(def);
      shape("switch.cascade");
      break;
    }
    case 1: {  // balanced compare tree
      int64_t base = rng.chance(30) ? rng.range(1, 100) : 0;
      if (negativeBase && !unsignedSplits && rng.coin()) base = -rng.range(1, 100);
      Value s = sel;
      if (base) {
        s = newReg(selKind, sel.uni);
        emit(fmt::format("add.{} \t{}, {}, {}", sTy, s.text, sel.text, base));
      }
      // Over runs of values with one target when `ranges`, else over single values.
      std::vector<Run> runs;
      if (ranges) {
        runs = runsOf(cases);
      } else {
        for (const Case& k : cases) runs.push_back({k.value, k.value, k.label});
      }
      // Unsigned splits are sound here: every compared value is non-negative.
      const char* splitTy = unsignedSplits ? uTy : sTy;
      // Recursive on [lo, hi) of the sorted runs.
      auto tree = [&](auto&& self, size_t lo, size_t hi) -> void {
        if (hi - lo <= 3) {
          for (size_t k = lo; k < hi; ++k) {
            if (ranges) {
              testRun(runs[k], s, sel.uni, base);
              continue;
            }
            Value p = newReg(Kind::Pred, sel.uni);
            emit(fmt::format("setp.eq.{} \t{}, {}, {}", sTy, p.text, s.text, runs[k].lo + base));
            branch(p, false, runs[k].label);
          }
          jump(def);
          return;
        }
        size_t mid = (lo + hi) / 2;
        std::string right = newLabel("sw_right");
        Value p = newReg(Kind::Pred, sel.uni);
        if (rng.coin()) {
          emit(fmt::format("setp.gt.{} \t{}, {}, {}", splitTy, p.text, s.text, runs[mid - 1].hi + base));
          branch(p, false, right);
        } else {
          emit(fmt::format("setp.lt.{} \t{}, {}, {}", splitTy, p.text, s.text, runs[mid].lo + base));
          branch(p, true, right);
        }
        self(self, lo, mid);
        label(right);
        self(self, mid, hi);
      };
      tree(tree, 0, runs.size());
      shape("switch.tree");
      if (ranges) shape("switch.ranges");
      if (unsignedSplits) shape("switch.unsigned-splits");
      break;
    }
    default: {  // jump table
      unsigned tableSize = guardedBrx ? span : selRange;
      std::vector<std::string> targets(tableSize, def);
      for (const Case& k : cases) targets[static_cast<size_t>(k.value)] = k.label;
      if (guardedBrx) {
        Value p = newReg(Kind::Pred, sel.uni);
        emit(fmt::format("setp.{}.u32 \t{}, {}, {}", rng.coin() ? "hs" : "ge", p.text, sel.text, tableSize));
        branch(p, false, def);
      }
      std::string table = newLabel("brx");
      std::string list;
      for (size_t k = 0; k < targets.size(); ++k) list += (k ? ", " : "") + targets[k];
      emitRaw(fmt::format("\t{}: .branchtargets {};", table, list));
      emit(fmt::format("brx.idx{} \t{}, {}", uniSel && rng.coin() ? ".uni" : "", sel.text, table));
      shape(sparse ? "switch.brx.sparse" : "switch.brx.dense");
      if (guardedBrx) shape("switch.brx.guarded");
      break;
    }
  }
  if (hasDefault) shape("switch.default");

  unsigned caseBudget = std::max<unsigned>(1, budget / static_cast<unsigned>(bodies.size() + 1));
  auto assignConstants = [&] {
    for (const Value& r : consts)
      if (llvmConstants || rng.chance(85)) emit(fmt::format("mov.{} \t{}, {}", movType(r.kind), r.text, constantOf(r.kind)));
  };
  for (size_t k = 0; k < bodies.size(); ++k) {
    label(bodies[k]);
    if (constants) {
      assignConstants();
    } else {
      pushScope();
      genSeq(ic, static_cast<unsigned>(rng.small(1, std::max<unsigned>(1, std::min<unsigned>(caseBudget, 12)))));
      popScope();
    }
    bool last = k + 1 == bodies.size();
    if (caseExits && rng.chance(40)) {
      if (fn_->caseExitLabel.empty()) {
        fn_->caseExitLabel = newLabel("swexit");
        fn_->caseExitValue = newReg(Kind::B32, Uni::Div);
      }
      emit(fmt::format("mov.u32 \t{}, {}", fn_->caseExitValue.text, pickReg(Kind::B32, Uni::Div).text));
      jump(fn_->caseExitLabel);
      exited = true;
      continue;
    }
    if (!last && rng.chance(12)) {
      shape("switch.fallthrough");
      continue;
    }
    if (!(last && !hasDefault)) jump(end);
  }
  if (hasDefault) {
    label(def);
    if (constants && (llvmConstants || rng.chance(75))) {
      assignConstants();
    } else {
      pushScope();
      genSeq(ic, static_cast<unsigned>(rng.small(1, std::max<unsigned>(1, std::min<unsigned>(caseBudget, 8)))));
      popScope();
    }
  }
  label(end);
  if (exited) {
    shape("switch.case-exit");
    fn_->threadsMissing = true;
  }
  // The constants reach the output through the thread's scratch slots.
  for (const Value& r : consts) {
    if (!fn_->env.outp) break;
    unsigned off = 8 * (kVarSlots + static_cast<unsigned>(rng.below(kScratchSlots)));
    emit(fmt::format("st.global.{} \t[{}+{}], {}", movType(r.kind), fn_->env.outp.text, off, r.text));
  }
}

}  // namespace ptxopt::fuzz
