// Statement sequences and control flow: structured if/else (triangles, diamonds, nesting),
// condition chains, loops (uniform and divergent trip counts, break/continue, nesting),
// unstructured shapes (gotos into a shared tail, a jump into the middle of an else arm,
// several exits) and irreducible loops.
#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

namespace {

enum Stmt : unsigned {
  kArith, kGuarded, kSelect, kLoad, kStore, kLocal, kAtomic, kOwnShared, kExchange, kSplitExchange, kWarpExchange, kSnapshot,
  kWarpOp, kBarrier, kBarRed, kFence, kIf, kChain, kLoop, kSwitch, kGotoTail, kIntoElse, kIrreducible, kExit,
  kCall, kBreakCont, kAsyncExchange, kMeldPair, kCount
};

}  // namespace

Uni Gen::condLevel(const Ctx& c) {
  // Where barriers are still possible, keep it so more often: uniform branches are where
  // barriers, exchanges and full-warp collectives can sit.
  bool uniformHere = c.flow <= Uni::Cta && !fn_->lanesMissing && !fn_->threadsMissing;
  switch (uniformHere ? rng.weighted({5, 45, 12, 38}) : rng.weighted({4, 30, 14, 52})) {
    case 0: return Uni::Const;
    case 1: return Uni::Cta;
    case 2: return Uni::Warp;
    default: return Uni::Div;
  }
}

void Gen::branch(const Value& pred, bool negate, const std::string& target) {
  bool uni = pred.uni <= Uni::Warp && rng.coin();
  emit(fmt::format("@{}{} bra{} \t{}", negate ? "!" : "", pred.text, uni ? ".uni" : "", target));
  if (uni) shape("branch.uni");
}

void Gen::jump(const std::string& target) { emit(fmt::format("bra{} \t{}", rng.chance(70) ? ".uni" : "", target)); }

void Gen::genSeq(const Ctx& c, unsigned budget) {
  unsigned used = 0;
  while (used < budget) {
    unsigned before = fn_->instructions;
    genStmt(c, budget - used);
    unsigned made = fn_->instructions - before;
    used += made == 0 ? 1 : made;
  }
  foldScope(c);
}

void Gen::genStmt(const Ctx& c, unsigned budget) {
  mult_ = c.mult;
  std::vector<unsigned> w(kCount, 0);
  bool bar = barriersOk(c);
  bool full = warpFull(c);
  uint64_t left = dynamicLeft(c);
  bool roomForLoop = c.mult * 2 <= lim.maxMult && left > c.mult * 2 * std::min<uint64_t>(budget, 40);
  w[kArith] = 30;
  w[kGuarded] = 6;
  w[kSelect] = 4;
  w[kLoad] = 7;
  w[kStore] = 4;
  w[kLocal] = 2;
  w[kAtomic] = 3;
  w[kOwnShared] = 2;
  w[kExchange] = bar ? 6 : 0;
  w[kSplitExchange] = 0;  // barrier-heavy kernels only (below): other seeds keep their kernels
  w[kWarpExchange] = full ? 3 : 0;
  w[kSnapshot] = bar && usesShAcc ? 1 : 0;
  w[kWarpOp] = full ? 7 : 5;
  w[kBarrier] = bar ? 6 : 0;
  w[kBarRed] = bar ? 2 : 0;
  w[kFence] = 1;
  if (budget >= 3 && c.ifDepth < opts.maxIfDepth) w[kIf] = c.ifDepth == 0 ? 12 : 16;
  if (budget >= 4 && c.ifDepth < opts.maxIfDepth) w[kChain] = 3;
  if (budget >= 5 && roomForLoop) w[kLoop] = c.loopDepth == 0 ? 6 : 3;
  if (budget >= 6 && c.ifDepth < opts.maxIfDepth) w[kSwitch] = 4;
  if (budget >= 4) w[kGotoTail] = 3;
  if (budget >= 6) w[kIntoElse] = 2;
  if (budget >= 6 && roomForLoop) w[kIrreducible] = 2;
  // Kernel exits mostly late: an exit that may leave part of the CTA behind ends the
  // barriers of the rest of the kernel.
  if (!c.noExit) w[kExit] = fn_->kernel ? (fn_->instructions > exitAfter ? 2 : 0) : 2;
  if (!callees.empty() && left > c.mult * 400) w[kCall] = 3;
  if (opts.barrierHeavy) {
    w[kBarrier] *= 4;
    w[kExchange] *= 2;
    w[kSplitExchange] = bar ? 3 : 0;
  }
  // Asynchronous-copy exchanges only when asked for: other seeds keep their kernels.
  if (opts.asyncCopies) w[kAsyncExchange] = bar ? (opts.barrierHeavy ? 8 : 4) : 0;
  if (opts.switchHeavy && budget >= 4 && c.ifDepth < opts.maxIfDepth) w[kSwitch] = 20;
  if (opts.ifElseHeavy) {
    w[kIf] *= 3;
    w[kChain] *= 2;
    w[kArith] *= 2;
  }
  if (opts.nestingHeavy) {
    w[kIf] *= c.ifDepth == 0 ? 3 : 6;
    w[kArith] *= 2;
    w[kStore] *= 2;
    w[kLoop] /= 2;
    w[kGotoTail] /= 2;
    w[kIntoElse] /= 2;
    w[kIrreducible] /= 2;
  }
  // Meld pairs only when asked for: other seeds keep their kernels.
  if (opts.meldHeavy && budget >= 6 && c.ifDepth < opts.maxIfDepth) w[kMeldPair] = 40;
  if (c.loop && c.flow <= c.loop->breakUni) w[kBreakCont] = 4;
  switch (rng.weighted(w)) {
    case kArith: genArith(c); break;
    case kGuarded: genGuarded(c); break;
    case kSelect: genSelect(c); break;
    case kLoad: genLoad(c); break;
    case kStore: genStoreOut(c); break;
    case kLocal: genLocal(c); break;
    case kAtomic: genAtomic(c); break;
    case kOwnShared: genOwnShared(c); break;
    case kExchange: genExchange(c); break;
    case kSplitExchange: genSplitExchange(c); break;
    case kAsyncExchange: genAsyncExchange(c); break;
    case kWarpExchange: genWarpExchange(c); break;
    case kSnapshot: genAccSnapshot(c); break;
    case kWarpOp: genWarpOp(c); break;
    case kBarrier: genBarrier(c); break;
    case kBarRed: genBarRed(c); break;
    case kFence: genFence(c); break;
    case kIf: genIf(c, budget); break;
    case kChain: genCondChain(c, budget); break;
    case kLoop: genLoop(c, budget); break;
    case kSwitch: genSwitch(c, budget); break;
    case kGotoTail: genGotoTail(c, budget); break;
    case kIntoElse: genJumpIntoElse(c, budget); break;
    case kIrreducible: genIrreducible(c, budget); break;
    case kExit: genEarlyExit(c); break;
    case kCall: genCall(c); break;
    case kBreakCont: genBreakContinue(c); break;
    case kMeldPair: genMeldPair(c, budget); break;
    default: genArith(c); break;
  }
  mult_ = c.mult;
}

namespace {

// Arms are mostly short (what if-conversion looks at), sometimes a good part of what is left.
unsigned armBudget(Random& rng, unsigned budget) {
  if (budget <= 2) return 1;
  if (rng.chance(55)) return static_cast<unsigned>(rng.range(1, std::min<unsigned>(5, budget)));
  return static_cast<unsigned>(rng.small(1, budget));
}

}  // namespace

void Gen::genIf(const Ctx& c, unsigned budget) {
  Value p = genCond(c, condLevel(c));
  Ctx ic = c;
  ic.flow = worst(c.flow, p.uni);
  ic.ifDepth = c.ifDepth + 1;
  bool neg = rng.coin();
  std::string kind = p.uni == Uni::Div ? "div" : (p.uni == Uni::Const ? "const" : "uni");
  unsigned b1 = armBudget(rng, budget);
  unsigned b2 = armBudget(rng, budget > b1 ? budget - b1 : 1);
  // Nesting-heavy kernels: arms with room for conditionals of their own.
  if (opts.nestingHeavy && budget >= 8 && rng.chance(50)) {
    b1 = static_cast<unsigned>(rng.range(3, std::min<unsigned>(12, budget / 2)));
    b2 = static_cast<unsigned>(rng.range(3, std::min<unsigned>(12, budget - b1)));
  }
  switch (rng.weighted({38, 50, 4, 8})) {
    case 0: {  // triangle
      std::string end = newLabel("endif");
      branch(p, neg, end);
      pushScope();
      genSeq(ic, b1);
      popScope();
      label(end);
      shape("if.triangle." + kind);
      break;
    }
    case 1: {  // diamond
      std::string elseL = newLabel("else"), end = newLabel("endif");
      branch(p, neg, elseL);
      pushScope();
      // If/else-heavy kernels: now and then both arms start with the same instructions (what
      // commoning hoists); they read only what the header sees.
      std::vector<std::string> common;
      if (opts.ifElseHeavy && rng.chance(35)) {
        size_t mark = fn_->lines.size();
        for (unsigned n = 1 + rng.below(2); n > 0; --n) genArith(ic);
        common.assign(fn_->lines.begin() + long(mark), fn_->lines.end());
        shape("if.diamond.common-start");
      }
      genSeq(ic, b1);
      popScope();
      jump(end);
      label(elseL);
      pushScope();
      for (const std::string& line : common) fn_->lines.push_back(line);
      genSeq(ic, b2);
      popScope();
      label(end);
      shape(ic.ifDepth > 1 ? "if.diamond.nested" : "if.diamond." + kind);
      break;
    }
    case 2: {  // a branch around nothing, and a branch whose both edges meet
      std::string end = newLabel("endif");
      branch(p, neg, end);
      label(end);
      shape("if.empty");
      break;
    }
    default: {  // the then arm placed after the else arm (the layout cicc produces often)
      std::string thenL = newLabel("then"), end = newLabel("endif");
      branch(p, neg, thenL);
      pushScope();
      genSeq(ic, b2);
      popScope();
      jump(end);
      label(thenL);
      pushScope();
      genSeq(ic, b1);
      popScope();
      label(end);
      shape("if.diamond.swapped");
      break;
    }
  }
}

// The uniformity levels of `n` conditions drawn for one region, into `wants`; returns the least
// uniform of them and the flow around the region (the flow inside it).
Uni Gen::drawConditionLevels(const Ctx& c, unsigned n, std::vector<Uni>& wants) {
  Uni region = c.flow;
  for (unsigned i = 0; i < n; ++i) {
    wants.push_back(condLevel(c));
    region = worst(region, wants.back());
  }
  return region;
}

// if (a) [pure code] if (b) [pure code] if (c) body — and `if (a || b) X else Y`: what
// nested-condition flattening turns into one branch on and.pred/or.pred.
void Gen::genCondChain(const Ctx& c, unsigned budget) {
  unsigned n = static_cast<unsigned>(rng.range(2, 4));
  std::vector<Uni> wants;
  Uni region = drawConditionLevels(c, n, wants);
  Ctx ic = c;
  ic.flow = region;
  ic.ifDepth = c.ifDepth + 1;
  bool withElse = rng.chance(35);
  bool isOr = rng.chance(30);
  std::string end = newLabel("chain_end");
  std::string elseL = withElse ? newLabel("chain_else") : end;
  std::string body = newLabel("chain_body");
  // Conditions after the first branch are computed only by the lanes still in the chain: keep
  // them out of sight of the code after it.
  pushScope();
  unsigned scopes = 1;
  for (unsigned i = 0; i < n; ++i) {
    Value p = genCond(ic, wants[i]);
    if (isOr && i + 1 < n) {
      branch(p, false, body);  // any true condition enters the body
    } else {
      branch(p, true, elseL);  // and: a false condition skips it
    }
    if (i + 1 < n && !isOr && rng.chance(60)) {
      pushScope();
      ++scopes;
      unsigned k = static_cast<unsigned>(rng.range(1, 3));
      for (unsigned j = 0; j < k; ++j) genArith(ic);
    }
  }
  if (isOr) {
    // Lanes enter the body from any of the conditions: it sees only what was there before.
    while (scopes) {
      popScope();
      --scopes;
    }
    label(body);
  }
  pushScope();
  genSeq(ic, armBudget(rng, budget));
  popScope();
  while (scopes--) popScope();
  if (withElse) {
    jump(end);
    label(elseL);
    pushScope();
    genSeq(ic, armBudget(rng, budget));
    popScope();
  }
  label(end);
  shape(isOr ? "chain.or" : "chain.and");
}

// if (p) A else A': a divergent branch whose sides have one shape (GeneratorOptions::meldHeavy).
// A' is A with every register and label A introduced renamed, and now and then an immediate of
// add, sub or mul.lo changed by one (never one inside brackets, never one of magnitude below 2:
// a loop that counts by 1 or -1 keeps its step; indices are masked or reduced after these, and
// no mask, divisor or trip bound is their operand; not xor, which computes shuffle and
// exchange partners, lane ^ k, that must stay in the warp: seed 900763 read past its shared
// rows with k = 32). The sides then pair instruction by instruction, with different
// destinations and some different operands.
void Gen::genMeldPair(const Ctx& c, unsigned budget) {
  Value p = genCond(c, rng.chance(80) ? Uni::Div : condLevel(c));
  Ctx ic = c;
  ic.flow = worst(c.flow, p.uni);
  ic.ifDepth = c.ifDepth + 1;
  const unsigned armBudget = static_cast<unsigned>(rng.range(2, std::min<unsigned>(14, std::max<unsigned>(3, budget - 2))));
  std::string elseL = newLabel("meld_else"), end = newLabel("meld_end");
  branch(p, rng.coin(), elseL);
  unsigned before[kKinds];
  std::copy(std::begin(fn_->regs), std::end(fn_->regs), before);
  const size_t mark = fn_->lines.size();
  const unsigned instBefore = fn_->instructions;
  const uint64_t dynBefore = fn_->dynamic;
  pushScope();
  genSeq(ic, armBudget);
  popScope();
  const std::vector<std::string> arm(fn_->lines.begin() + long(mark), fn_->lines.end());
  static const std::regex kToken(R"((\$L_[A-Za-z_]+_\d+|%(?:rs|rd|fd|r|f|p)\d+))");
  // Replaces the register and label tokens of `line` that `to` names.
  auto substitute = [](const std::string& line, const std::map<std::string, std::string>& to) {
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), kToken); it != std::sregex_iterator(); ++it) {
      out += line.substr(last, size_t(it->position()) - last);
      auto r = to.find(it->str());
      out += r == to.end() ? it->str() : r->second;
      last = size_t(it->position() + it->length());
    }
    return out + line.substr(last);
  };
  // In half the pairs the arm (the side the branch falls into) computes in a register defined
  // just before the branch where its copy computes in a new one: the first write, in the arm's
  // first block, of a new 32-bit register by a plain operation whose first source exists before
  // the branch (and is not touched before it in the arm) becomes `mov.b32 E, source` before the
  // branch and `op E, E, ...` in the arm, every later use of the new register reading E. The
  // values are the arm's own (no uniformity or trip count changes); `meld` renames E to the
  // copy's name, whose value on entry the arm reads: an entry copy in the branch's block.
  if (rng.chance(50)) {
    static const std::regex kFirstWrite(
        R"(^(\t(?:add|sub|xor|and|or|min|max|mul\.lo)\.[sub]32)\s+(%r(\d+)), (%r(\d+)|-?\d+), (.*);$)");
    const unsigned oldB32 = before[static_cast<int>(Kind::B32)];
    std::set<std::string> seen;  // tokens of the arm met so far
    // Only in the arm's first block, which nothing branches back to (it has no label): a write
    // that runs more than once per entry would accumulate in E (seed 931936: an index out of
    // bounds).
    for (size_t n = 0; n < arm.size() && arm[n].rfind("$L", 0) != 0; ++n) {
      std::smatch m;
      if (std::regex_match(arm[n], m, kFirstWrite) && std::stoul(m[3].str()) > oldB32 && !seen.count(m[2].str()) &&
          !seen.count(m[4].str()) && (m[5].str().empty() || std::stoul(m[5].str()) <= oldB32)) {
        const Value entry = newReg(Kind::B32, Uni::Div);  // in no scope: nothing else reads it
        const std::map<std::string, std::string> to{{m[2].str(), entry.text}};
        fn_->lines[mark + n] =
            fmt::format("{} \t{}, {}, {};", m[1].str(), entry.text, entry.text, substitute(m[6].str(), to));
        for (size_t q = mark + n + 1; q < mark + arm.size(); ++q) fn_->lines[q] = substitute(fn_->lines[q], to);
        fn_->lines.insert(fn_->lines.begin() + long(mark) - 1, fmt::format("\tmov.b32 \t{}, {};", entry.text, m[4].str()));
        ++fn_->instructions;
        fn_->dynamic += mult_;
        shape("meld.pair.entry-copy");
        break;
      }
      for (auto it = std::sregex_iterator(arm[n].begin(), arm[n].end(), kToken); it != std::sregex_iterator(); ++it)
        seen.insert(it->str());
    }
  }
  const unsigned armInsts = fn_->instructions - instBefore;
  const uint64_t armDyn = fn_->dynamic - dynBefore;
  jump(end);
  label(elseL);
  // New names for what the arm introduced.
  std::map<std::string, std::string> rename;
  static const Kind kAll[] = {Kind::Pred, Kind::B16, Kind::B32, Kind::B64, Kind::F32, Kind::F64};
  for (Kind k : kAll) {
    const int ki = static_cast<int>(k);
    const unsigned after = fn_->regs[ki];
    for (unsigned n = before[ki] + 1; n <= after; ++n)
      rename[fmt::format("{}{}", regPrefix(k), n)] = newReg(k, Uni::Div).text;
  }
  static const std::regex kLabelDef(R"(^\t?(\$L_[A-Za-z_]+_(\d+)):)");
  for (const std::string& line : arm) {
    std::smatch m;
    if (std::regex_search(line, m, kLabelDef)) {
      std::string hint = m[1].str().substr(3);
      hint = hint.substr(0, hint.rfind('_'));
      rename[m[1].str()] = newLabel(hint.c_str());
    }
  }
  // Now and then the copy starts with a block only it has (DARM's one-sided region, meld's
  // Pad): a divergent test that sends some lanes through a block of arithmetic of their own,
  // which goes on to the copy's first block or to the end.
  std::string oneSided, armStart;
  if (p.uni == Uni::Div && rng.chance(30)) {  // (a uniform pair's arm may hold a barrier)
    pushScope();  // the test's values exist on this side only
    Value q = genCond(ic, Uni::Div);
    oneSided = newLabel("meld_one");
    branch(q, rng.coin(), oneSided);
    popScope();
    if (rng.coin()) {
      armStart = newLabel("meld_arm");
      label(armStart);
    }
  }
  static const std::regex kPlain(R"(^(\t(?:add|sub)\.[su]32|\tmul\.lo\.[su]32) (.*), (-?\d+);$)");
  for (const std::string& line : arm) {
    std::string out = substitute(line, rename);
    std::smatch m;
    if (std::regex_match(out, m, kPlain) && rng.chance(35)) {
      long long v = std::stoll(m[3].str());
      if (v >= 2 || v <= -2) out = fmt::format("{} {}, {};", m[1].str(), m[2].str(), v + 1);
    }
    fn_->lines.push_back(out);
  }
  fn_->instructions += armInsts;
  fn_->dynamic += armDyn;
  if (!oneSided.empty()) {
    jump(end);
    label(oneSided);
    pushScope();  // what the block defines is not defined on the other paths
    genArith(ic);
    popScope();
    jump(armStart.empty() ? end : armStart);
    shape(armStart.empty() ? "meld.pair.one-sided-exit" : "meld.pair.one-sided");
  }
  label(end);
  shape(p.uni == Uni::Div ? "meld.pair.div" : "meld.pair.uniform");
}

void Gen::genBreakContinue(const Ctx& c) {
  // The lanes that leave are those here for which the condition holds: under a divergent arm
  // even a uniform condition is a divergent break.
  if (!c.loop || c.flow > c.loop->breakUni) return;
  Uni want = condLevel(c);
  if (want > c.loop->breakUni) want = c.loop->breakUni;
  Value p = genCond(c, want);
  bool isBreak = rng.coin();
  branch(p, rng.coin(), isBreak ? c.loop->exitLabel : c.loop->contLabel);
  shape(isBreak ? "loop.break" : "loop.continue");
}

void Gen::genLoop(const Ctx& c, unsigned budget) {
  uint64_t room = lim.maxMult / c.mult;
  uint64_t maxTrip = std::min<uint64_t>(room, rng.chance(70) ? 4 : 8);
  if (maxTrip < 2) {
    genArith(c);
    return;
  }
  // The trip count: a register nobody else writes, in [1, maxTrip].
  Uni tripWant;
  bool uniformHere = c.flow <= Uni::Cta && !fn_->lanesMissing && !fn_->threadsMissing;
  switch (uniformHere ? rng.weighted({20, 45, 5, 30}) : rng.weighted({15, 35, 10, 40})) {
    case 0: tripWant = Uni::Const; break;
    case 1: tripWant = Uni::Cta; break;
    case 2: tripWant = Uni::Warp; break;
    default: tripWant = Uni::Div; break;
  }
  pushScope();  // the counter and the trip count live as long as the loop
  Value n;
  uint64_t pow2 = 1;
  while (pow2 * 2 <= maxTrip) pow2 *= 2;
  if (tripWant == Uni::Const) {
    n = newReg(Kind::B32, Uni::Const);
    emit(fmt::format("mov.u32 \t{}, {}", n.text, rng.range(1, static_cast<int64_t>(maxTrip))));
  } else {
    Value src = tripWant == Uni::Div ? pickExact(Kind::B32, Uni::Div) : pickReg(Kind::B32, tripWant);
    Value t = newReg(Kind::B32, src.uni);
    if (rng.coin()) {
      emit(fmt::format("and.b32 \t{}, {}, {}", t.text, src.text, pow2 - 1));
    } else {
      emit(fmt::format("rem.u32 \t{}, {}, {}", t.text, src.text, maxTrip));
    }
    n = newReg(Kind::B32, src.uni);
    emit(fmt::format("add.u32 \t{}, {}, 1", n.text, t.text));
  }
  define(n, false);
  bool hasBreaks = rng.chance(40);
  LoopInfo info;
  info.contLabel = newLabel("loop_cont");
  info.exitLabel = newLabel("loop_exit");
  info.breakUni = hasBreaks ? rng.pick<Uni>({Uni::Cta, Uni::Cta, Uni::Warp, Uni::Div, Uni::Div}) : Uni::Const;
  Ctx ic = c;
  ic.flow = worst(worst(c.flow, n.uni), info.breakUni);
  ic.loopDepth = c.loopDepth + 1;
  ic.mult = c.mult * maxTrip;
  ic.noExit = true;
  ic.loop = hasBreaks ? &info : nullptr;
  // The counter: i counts 0, step, 2*step, ... or down from n to 1.
  int shapeKind = static_cast<int>(rng.weighted({45, 30, 15, 10}));  // do-while, while, count down, stepped
  Value i = newReg(Kind::B32, ic.flow);
  define(i, false);
  std::string head = newLabel("loop");
  unsigned bodyBudget = static_cast<unsigned>(std::max<int64_t>(1, rng.small(1, std::max<unsigned>(2, budget - 4))));
  bool uniTrip = n.uni <= Uni::Warp;
  auto body = [&] {
    pushScope();
    genSeq(ic, bodyBudget);
    popScope();
  };
  switch (shapeKind) {
    case 0: {  // do { } while (++i < n)
      emit(fmt::format("mov.u32 \t{}, 0", i.text));
      label(head);
      body();
      label(info.contLabel);
      emit(fmt::format("add.s32 \t{}, {}, 1", i.text, i.text));
      Value q = newReg(Kind::Pred, ic.flow);
      emit(fmt::format("setp.{}.u32 \t{}, {}, {}", rng.pick<const char*>({"lt", "lo", "ne"}), q.text, i.text, n.text));
      emit(fmt::format("@{} bra{} \t{}", q.text, uniTrip && rng.coin() ? ".uni" : "", head));
      label(info.exitLabel);
      break;
    }
    case 1: {  // while (i < n) { ...; ++i }
      emit(fmt::format("mov.u32 \t{}, 0", i.text));
      label(head);
      Value q = newReg(Kind::Pred, ic.flow);
      emit(fmt::format("setp.ge.u32 \t{}, {}, {}", q.text, i.text, n.text));
      emit(fmt::format("@{} bra{} \t{}", q.text, uniTrip && rng.coin() ? ".uni" : "", info.exitLabel));
      body();
      label(info.contLabel);
      emit(fmt::format("add.s32 \t{}, {}, 1", i.text, i.text));
      jump(head);
      label(info.exitLabel);
      break;
    }
    case 2: {  // for (i = n; i > 0; --i)
      emit(fmt::format("mov.u32 \t{}, {}", i.text, n.text));
      label(head);
      body();
      label(info.contLabel);
      emit(fmt::format("add.s32 \t{}, {}, -1", i.text, i.text));
      Value q = newReg(Kind::Pred, ic.flow);
      emit(fmt::format("setp.{}.s32 \t{}, {}, 0", rng.pick<const char*>({"gt", "ne"}), q.text, i.text));
      emit(fmt::format("@{} bra{} \t{}", q.text, uniTrip && rng.coin() ? ".uni" : "", head));
      label(info.exitLabel);
      break;
    }
    default: {  // for (i = start; i < start + n*step; i += step)
      int64_t step = rng.range(2, 9), start = rng.range(-20, 20);
      Value limit = newReg(Kind::B32, n.uni);
      emit(fmt::format("mad.lo.s32 \t{}, {}, {}, {}", limit.text, n.text, step, start));
      define(limit, false);
      emit(fmt::format("mov.u32 \t{}, {}", i.text, start));
      label(head);
      body();
      label(info.contLabel);
      emit(fmt::format("add.s32 \t{}, {}, {}", i.text, i.text, step));
      Value q = newReg(Kind::Pred, ic.flow);
      emit(fmt::format("setp.lt.s32 \t{}, {}, {}", q.text, i.text, limit.text));
      emit(fmt::format("@{} bra{} \t{}", q.text, uniTrip && rng.coin() ? ".uni" : "", head));
      label(info.exitLabel);
      break;
    }
  }
  popScope();
  const char* names[] = {"loop.dowhile", "loop.while", "loop.countdown", "loop.stepped"};
  shape(names[shapeKind]);
  shape(ic.flow == Uni::Div ? "loop.divergent" : "loop.uniform");
  if (c.loopDepth > 0) shape("loop.nested");
}

// Forward gotos from several points of a region into one tail.
void Gen::genGotoTail(const Ctx& c, unsigned budget) {
  unsigned n = static_cast<unsigned>(rng.range(1, 3));
  std::vector<Uni> wants;
  Uni region = drawConditionLevels(c, n, wants);
  Ctx rc = c;
  rc.flow = region;
  rc.ifDepth = c.ifDepth + 1;
  std::string tail = newLabel("tail");
  pushScope();
  for (unsigned i = 0; i < n; ++i) {
    Value p = genCond(rc, wants[i]);
    branch(p, rng.coin(), tail);
    genSeq(rc, armBudget(rng, std::max<unsigned>(1, budget / n)));
  }
  popScope();
  label(tail);
  shape(n > 1 ? "goto.tail.multi" : "goto.tail");
}

// if (p) { A1; if (q) goto mid; A2 } else { B1; mid: B2 }
void Gen::genJumpIntoElse(const Ctx& c, unsigned budget) {
  Uni wp = condLevel(c), wq = condLevel(c);
  Ctx rc = c;
  rc.flow = worst(c.flow, worst(wp, wq));
  rc.ifDepth = c.ifDepth + 1;
  std::string elseL = newLabel("else"), mid = newLabel("mid"), end = newLabel("endif");
  unsigned b = std::max<unsigned>(1, budget / 4);
  Value p = genCond(c, wp);
  branch(p, rng.coin(), elseL);
  pushScope();
  genSeq(rc, armBudget(rng, b));
  Value q = genCond(rc, wq);
  branch(q, rng.coin(), mid);
  genSeq(rc, armBudget(rng, b));
  popScope();
  jump(end);
  label(elseL);
  pushScope();
  genSeq(rc, armBudget(rng, b));
  popScope();
  label(mid);
  pushScope();
  genSeq(rc, armBudget(rng, b));
  popScope();
  label(end);
  shape("goto.into_else");
}

// A loop with two entries: `if (p) goto B; A: ...; B: ...; if (++i < n) goto A;`.
void Gen::genIrreducible(const Ctx& c, unsigned budget) {
  uint64_t maxTrip = std::min<uint64_t>(lim.maxMult / c.mult, 4);
  if (maxTrip < 2) {
    genArith(c);
    return;
  }
  pushScope();
  Uni tripWant = rng.pick<Uni>({Uni::Const, Uni::Cta, Uni::Div, Uni::Div});
  Value n = newReg(Kind::B32, tripWant == Uni::Const ? Uni::Const : Uni::Div);
  if (tripWant == Uni::Const) {
    emit(fmt::format("mov.u32 \t{}, {}", n.text, rng.range(1, static_cast<int64_t>(maxTrip))));
  } else {
    Value src = tripWant == Uni::Div ? pickExact(Kind::B32, Uni::Div) : pickReg(Kind::B32, Uni::Cta);
    Value t = newReg(Kind::B32, src.uni);
    emit(fmt::format("rem.u32 \t{}, {}, {}", t.text, src.text, maxTrip));
    emit(fmt::format("add.u32 \t{}, {}, 1", n.text, t.text));
    n.uni = src.uni;
  }
  define(n, false);
  Value i = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("mov.u32 \t{}, 0", i.text));
  Value p = genCond(c, condLevel(c));
  Ctx rc = c;
  rc.flow = worst(c.flow, worst(p.uni, n.uni));
  rc.mult = c.mult * maxTrip;
  rc.loopDepth = c.loopDepth + 1;
  rc.noExit = true;
  rc.loop = nullptr;
  i.uni = rc.flow;
  define(i, false);
  std::string a = newLabel("irr_a"), b = newLabel("irr_b");
  branch(p, rng.coin(), b);
  label(a);
  pushScope();
  genSeq(rc, armBudget(rng, std::max<unsigned>(1, budget / 2)));
  popScope();
  label(b);
  pushScope();
  genSeq(rc, armBudget(rng, std::max<unsigned>(1, budget / 2)));
  popScope();
  emit(fmt::format("add.s32 \t{}, {}, 1", i.text, i.text));
  Value q = newReg(Kind::Pred, rc.flow);
  emit(fmt::format("setp.lt.u32 \t{}, {}, {}", q.text, i.text, n.text));
  emit(fmt::format("@{} bra \t{}", q.text, a));
  popScope();
  shape("irreducible");
}

void Gen::genEarlyExit(const Ctx& c) {
  if (c.noExit) return;
  Value p = genCond(c, condLevel(c));
  Uni eff = worst(c.flow, p.uni);
  bool neg = rng.chance(30);
  // A callee leaves through its return block, which stores the return value.
  switch (fn_->kernel ? rng.below(3) : 2) {
    case 0: emit(fmt::format("@{}{} exit", neg ? "!" : "", p.text)); break;
    case 1: emit(fmt::format("@{}{} ret", neg ? "!" : "", p.text)); break;
    default:
      if (fn_->exitLabel.empty()) fn_->exitLabel = newLabel("exit");
      branch(p, neg, fn_->exitLabel);
      break;
  }
  if (eff == Uni::Div) fn_->lanesMissing = true;
  if (eff == Uni::Warp) fn_->threadsMissing = true;
  shape(eff == Uni::Div ? "exit.divergent" : "exit.uniform");
}

}  // namespace ptxopt::fuzz
