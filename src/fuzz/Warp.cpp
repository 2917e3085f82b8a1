// Warp collectives with member masks that name exactly the lanes executing them, CTA
// barriers (needed ones come with the exchanges in Memory.cpp; these are the ones that order
// nothing), bar.red reductions and fences.
#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

Value Gen::warpMask(const Ctx& c) {
  if (warpFull(c) && rng.chance(75)) {
    Value m = immInt(Kind::B32, -1);
    m.text = rng.pick<const char*>({"-1", "0xffffffff", "0xFFFFFFFF"});
    return m;
  }
  // The lanes that execute here, taken right before the collective that uses them.
  Value m = newReg(Kind::B32, warpFull(c) ? Uni::Warp : Uni::Div);
  emit(fmt::format("activemask.b32 \t{}", m.text));
  shape("warp.activemask");
  return m;
}

// Where the warp is not known to be whole, which lanes execute a collective together depends on
// where the compiler lets diverged lanes reconverge, and a legitimate rewrite of the CFG
// (branch threading, if-conversion) may change it: such results go to registers nobody reads,
// unless the options ask for them.
Value Gen::collectiveDest(Kind k, Uni u, bool full, const Ctx& c, unsigned reusePercent) {
  if (full || opts.convergenceDependentResults) return dest(k, u, c, reusePercent);
  shape("warp.result_unused");
  return newReg(k, Uni::Div);
}

void Gen::genWarpOp(const Ctx& c) {
  bool full = warpFull(c);
  Uni collective = full ? Uni::Warp : Uni::Div;  // level of results that every member sees alike
  switch (rng.weighted({full ? 30u : 8u, 20, 10, 12, 6, 4, full ? 6u : 0u})) {
    case 0: {
      if (!full) {  // broadcast from the lowest active lane: the only lane known to take part
        Value m = warpMask(c);
        Value t = newReg(Kind::B32, Uni::Div), l = newReg(Kind::B32, Uni::Div);
        emit(fmt::format("brev.b32 \t{}, {}", t.text, m.text));
        emit(fmt::format("clz.b32 \t{}, {}", l.text, t.text));
        Value a = pickReg(Kind::B32, Uni::Div);
        Value d = collectiveDest(Kind::B32, Uni::Div, full, c);
        emit(fmt::format("shfl.sync.idx.b32 \t{}, {}, {}, 31, {}", d.text, a.text, l.text, m.text));
        shape("warp.shfl.broadcast");
        break;
      }
      Value m = warpMask(c);
      const char* mode = rng.pick<const char*>({"up", "down", "bfly", "idx"});
      unsigned width = rng.chance(70) ? 32 : (1u << rng.range(1, 4));
      unsigned seg = (32 - width) << 8;
      unsigned cval = std::string(mode) == "up" ? seg : (seg | 0x1f);
      Value b;
      if (rng.chance(70)) {
        b = immInt(Kind::B32, rng.range(0, 31));
      } else {
        Value r = pickReg(Kind::B32, Uni::Div);
        b = newReg(Kind::B32, r.uni);
        emit(fmt::format("and.b32 \t{}, {}, 31", b.text, r.text));
      }
      Kind k = rng.chance(25) ? Kind::F32 : Kind::B32;
      Value a = pickReg(k, Uni::Div);
      Value d = dest(k, Uni::Div, c);
      if (rng.chance(25)) {
        Value p = collectiveDest(Kind::Pred, Uni::Div, full, c, 0);
        emit(fmt::format("shfl.sync.{}.b32 \t{}|{}, {}, {}, {}, {}", mode, d.text, p.text, a.text, b.text, cval,
                         m.text));
      } else {
        emit(fmt::format("shfl.sync.{}.b32 \t{}, {}, {}, {}, {}", mode, d.text, a.text, b.text, cval, m.text));
      }
      shape(std::string("warp.shfl.") + mode);
      break;
    }
    case 1: {
      Value m = warpMask(c);
      Value p = pickReg(Kind::Pred, Uni::Div);
      const char* neg = rng.chance(25) ? "!" : "";
      if (rng.chance(40)) {
        Value d = collectiveDest(Kind::B32, collective, full, c);
        emit(fmt::format("vote.sync.ballot.b32 \t{}, {}{}, {}", d.text, neg, p.text, m.text));
        shape("warp.vote.ballot");
      } else {
        const char* mode = rng.pick<const char*>({"all", "any", "uni"});
        Value d = collectiveDest(Kind::Pred, collective, full, c);
        emit(fmt::format("vote.sync.{}.pred \t{}, {}{}, {}", mode, d.text, neg, p.text, m.text));
        shape(std::string("warp.vote.") + mode);
      }
      break;
    }
    case 2: {
      Value m = warpMask(c);
      bool wide = rng.chance(25);
      Value a = pickReg(wide ? Kind::B64 : Kind::B32, Uni::Div);
      if (rng.coin()) {
        Value d = collectiveDest(Kind::B32, Uni::Div, full, c);
        emit(fmt::format("match.any.sync.{} \t{}, {}, {}", wide ? "b64" : "b32", d.text, a.text, m.text));
        shape("warp.match.any");
      } else {
        Value d = collectiveDest(Kind::B32, collective, full, c);
        if (rng.coin()) {
          Value p = collectiveDest(Kind::Pred, collective, full, c, 0);
          emit(fmt::format("match.all.sync.{} \t{}|{}, {}, {}", wide ? "b64" : "b32", d.text, p.text, a.text, m.text));
        } else {
          emit(fmt::format("match.all.sync.{} \t{}, {}, {}", wide ? "b64" : "b32", d.text, a.text, m.text));
        }
        shape("warp.match.all");
      }
      break;
    }
    case 3: {
      Value m = warpMask(c);
      Value a = pickReg(Kind::B32, Uni::Div);
      Value d = collectiveDest(Kind::B32, collective, full, c);
      if (rng.coin()) {
        emit(fmt::format("redux.sync.{}.{} \t{}, {}, {}", rng.pick<const char*>({"add", "min", "max"}),
                         rng.pick<const char*>({"u32", "s32"}), d.text, a.text, m.text));
      } else {
        emit(fmt::format("redux.sync.{}.b32 \t{}, {}, {}", rng.pick<const char*>({"and", "or", "xor"}), d.text, a.text,
                         m.text));
      }
      shape("warp.redux");
      break;
    }
    case 4: {
      Value d = collectiveDest(Kind::B32, collective, full, c);
      emit(fmt::format("activemask.b32 \t{}", d.text));
      shape("warp.activemask");
      break;
    }
    case 5: {
      Value m = warpMask(c);
      emit(fmt::format("bar.warp.sync \t{}", m.text));
      shape("warp.bar_warp_sync");
      break;
    }
    default: genSplitCollective(c); break;
  }
}

// In a whole warp, one collective split over the two sides of a branch that splits the warp:
// each side runs the same operation with the same qualifiers and the full membermask, on a
// source of its own, into the same register. On sm_70 and later the lanes of the mask meet at
// either instruction and the operation combines all 32, wherever the compiler lets the sides
// reconverge (PTX ISA: a .sync collective waits for every non-exited lane of its mask), so the
// result may be read.
void Gen::genSplitCollective(const Ctx& c) {
  const Env& e = fn_->env;
  Value p = newReg(Kind::Pred, Uni::Div);
  emit(fmt::format("setp.{}.u32 \t{}, {}, {}", rng.pick<const char*>({"lt", "ge"}), p.text, e.lane.text, rng.range(1, 31)));
  Value a = pickReg(Kind::B32, Uni::Div), b = pickReg(Kind::B32, Uni::Div);
  const char* mask = rng.pick<const char*>({"-1", "0xFFFFFFFF", "0xffffffff"});
  std::string op;             // {0}: the destination, {1}: the side's source
  std::string srcA = a.text, srcB = b.text;
  bool maybeNegateB = false;  // a ballot's second predicate, negated or not (drawn when emitted)
  const char* kind = "";
  switch (rng.below(4)) {
    case 0: {
      const char* mode = rng.pick<const char*>({"up", "down", "bfly", "idx"});
      op = fmt::format("shfl.sync.{}.b32 \t{{0}}, {{1}}, {}, {}, {}", mode, rng.range(0, 31),
                       std::string(mode) == "up" ? 0 : 0x1f, mask);
      kind = "shfl";
      break;
    }
    case 1:
      op = fmt::format("redux.sync.{} \t{{0}}, {{1}}, {}", rng.pick<const char*>({"add.u32", "min.s32", "max.u32", "xor.b32"}), mask);
      kind = "redux";
      break;
    case 2:
      op = fmt::format("match.any.sync.b32 \t{{0}}, {{1}}, {}", mask);
      kind = "match";
      break;
    default: {
      // A ballot of a predicate each side computes from its source.
      Value q = newReg(Kind::Pred, Uni::Div), r = newReg(Kind::Pred, Uni::Div);
      unsigned bit = static_cast<unsigned>(rng.range(0, 31));
      emit(fmt::format("setp.ne.b32 \t{}, {}, 0", q.text, a.text));
      emit(fmt::format("setp.lt.s32 \t{}, {}, {}", r.text, b.text, bit));
      op = fmt::format("vote.sync.ballot.b32 \t{{0}}, {{1}}, {}", mask);
      srcA = q.text;
      srcB = r.text;
      maybeNegateB = true;
      kind = "vote";
      break;
    }
  }
  Value d = dest(Kind::B32, Uni::Div, c);
  std::string other = newLabel("csplit"), join = newLabel("csplit_join");
  emit(fmt::format("@{} bra \t{}", p.text, other));
  emit(fmt::format(fmt::runtime(op), d.text, srcA));
  emit(fmt::format("bra.uni \t{}", join));
  label(other);
  emit(fmt::format(fmt::runtime(op), d.text, (maybeNegateB && rng.coin() ? "!" : "") + srcB));
  label(join);
  shape(std::string("warp.split_collective.") + kind);
}

void Gen::barrier() {
  unsigned B = threads();
  switch (rng.weighted({45, 15, 10, 10, 10})) {
    case 0: emit("bar.sync \t0"); break;
    case 1: emit("barrier.sync \t0"); break;
    case 2: emit("barrier.sync.aligned \t0"); break;
    case 3: emit(fmt::format("bar.sync \t0, {}", B)); break;
    default: emit("bar.sync \t1"); break;
  }
}

void Gen::genBarrier(const Ctx& c) {
  if (!barriersOk(c)) return;
  barrier();
  if (rng.chance(20)) {
    barrier();  // back to back: the second one orders nothing
    shape("barrier.redundant");
  }
  shape(c.loopDepth > 0 ? "barrier.in_loop" : (c.ifDepth > 0 ? "barrier.uniform_branch" : "barrier.plain"));
}

void Gen::genBarRed(const Ctx& c) {
  if (!barriersOk(c)) return;
  Value p = pickReg(Kind::Pred, Uni::Div);
  const char* neg = rng.chance(25) ? "!" : "";
  switch (rng.below(3)) {
    case 0: {
      Value d = dest(Kind::B32, Uni::Cta, c);
      emit(fmt::format("bar.red.popc.u32 \t{}, 0, {}{}", d.text, neg, p.text));
      shape("barrier.red.popc");
      break;
    }
    case 1: {
      Value d = dest(Kind::Pred, Uni::Cta, c);
      emit(fmt::format("bar.red.and.pred \t{}, 0, {}{}", d.text, neg, p.text));
      shape("barrier.red.and");
      break;
    }
    default: {
      Value d = dest(Kind::Pred, Uni::Cta, c);
      emit(fmt::format("bar.red.or.pred \t{}, 0, {}{}", d.text, neg, p.text));
      shape("barrier.red.or");
      break;
    }
  }
}

void Gen::genFence(const Ctx& c) {
  (void)c;
  emit(rng.pick<const char*>({"membar.cta", "membar.gl", "fence.acq_rel.cta", "fence.sc.cta", "fence.acq_rel.gpu"}));
  shape("fence");
}

}  // namespace ptxopt::fuzz
