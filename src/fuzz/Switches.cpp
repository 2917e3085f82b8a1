// Switches: setp.eq + @p bra cascades, balanced compare trees (setp.gt/lt splits, as cicc
// writes them) and brx.idx jump tables (dense and sparse, with and without a default, the
// index masked into range or guarded by a bounds check).
#include <algorithm>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

namespace {

struct Case {
  int64_t value;
  std::string label;
};

}  // namespace

void Gen::genSwitch(const Ctx& c, unsigned budget) {
  unsigned ncases = static_cast<unsigned>(rng.range(2, 10));
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

  // Case labels; neighbouring values share a body now and then.
  std::vector<Case> cases;
  std::vector<std::string> bodies;  // distinct labels in layout order
  for (size_t k = 0; k < values.size(); ++k) {
    if (!bodies.empty() && rng.chance(15)) {
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
      Value s = sel;
      if (base) {
        s = newReg(Kind::B32, sel.uni);
        emit(fmt::format("add.s32 \t{}, {}, {}", s.text, sel.text, base));
      }
      std::vector<Case> order = cases;
      if (rng.chance(30)) rng.shuffle(order);
      for (const Case& k : order) {
        Value p = newReg(Kind::Pred, sel.uni);
        if (rng.chance(80)) {
          emit(fmt::format("setp.eq.s32 \t{}, {}, {}", p.text, s.text, k.value + base));
          branch(p, false, k.label);
        } else {
          emit(fmt::format("setp.ne.s32 \t{}, {}, {}", p.text, s.text, k.value + base));
          branch(p, true, k.label);
        }
      }
      jump(def);
      shape("switch.cascade");
      break;
    }
    case 1: {  // balanced compare tree
      int64_t base = rng.chance(30) ? rng.range(1, 100) : 0;
      Value s = sel;
      if (base) {
        s = newReg(Kind::B32, sel.uni);
        emit(fmt::format("add.s32 \t{}, {}, {}", s.text, sel.text, base));
      }
      // Recursive on [lo, hi) of the sorted cases.
      auto tree = [&](auto&& self, size_t lo, size_t hi) -> void {
        if (hi - lo <= 3) {
          for (size_t k = lo; k < hi; ++k) {
            Value p = newReg(Kind::Pred, sel.uni);
            emit(fmt::format("setp.eq.s32 \t{}, {}, {}", p.text, s.text, cases[k].value + base));
            branch(p, false, cases[k].label);
          }
          jump(def);
          return;
        }
        size_t mid = (lo + hi) / 2;
        std::string right = newLabel("sw_right");
        Value p = newReg(Kind::Pred, sel.uni);
        if (rng.coin()) {
          emit(fmt::format("setp.gt.s32 \t{}, {}, {}", p.text, s.text, cases[mid - 1].value + base));
          branch(p, false, right);
        } else {
          emit(fmt::format("setp.lt.s32 \t{}, {}, {}", p.text, s.text, cases[mid].value + base));
          branch(p, true, right);
        }
        self(self, lo, mid);
        label(right);
        self(self, mid, hi);
      };
      tree(tree, 0, cases.size());
      shape("switch.tree");
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
  for (size_t k = 0; k < bodies.size(); ++k) {
    label(bodies[k]);
    pushScope();
    genSeq(ic, static_cast<unsigned>(rng.small(1, std::max<unsigned>(1, std::min<unsigned>(caseBudget, 12)))));
    popScope();
    bool last = k + 1 == bodies.size();
    if (!last && rng.chance(12)) {
      shape("switch.fallthrough");
      continue;
    }
    if (!(last && !hasDefault)) jump(end);
  }
  if (hasDefault) {
    label(def);
    pushScope();
    genSeq(ic, static_cast<unsigned>(rng.small(1, std::max<unsigned>(1, std::min<unsigned>(caseBudget, 8)))));
    popScope();
  }
  label(end);
}

}  // namespace ptxopt::fuzz
