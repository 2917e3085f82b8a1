#include "ptxopt/analysis/BarrierRegions.h"

namespace ptxopt {

namespace {

// In one space, a write then a read or write, or a read then a write.
MemEffects pairHazard(MemEffects above, MemEffects below) {
  MemEffects h = 0;
  for (auto [r, w] : {std::pair{MemEffect::ReadShared, MemEffect::WriteShared},
                      std::pair{MemEffect::ReadGlobal, MemEffect::WriteGlobal}})
    if (((above & w) && (below & (r | w))) || ((above & r) && (below & w))) h |= r | w;
  return h;
}

}  // namespace

MemEffects SyncAccesses::all() const {
  MemEffects e = any;
  for (uint64_t o = own; o; o >>= 4) e |= static_cast<MemEffects>(o & 15);
  return e;
}

MemEffects syncHazard(const SyncAccesses& above, const SyncAccesses& below) {
  MemEffects h = pairHazard(above.any, below.all()) | pairHazard(above.all(), below.any);
  if (above.own && below.own)
    for (unsigned i = 0; i < SyncAccesses::kMaxSlotClasses; ++i)
      if (MemEffects a = above.ownOf(i))
        for (unsigned j = 0; j < SyncAccesses::kMaxSlotClasses; ++j)
          if (j != i) h |= pairHazard(a, below.ownOf(j));
  return h;
}

std::string syncAccessesText(const SyncAccesses& a) {
  MemEffects own = SyncAccesses{MemEffect::None, a.own}.all();
  if (!own) return memEffectsText(a.any);
  return (a.any ? memEffectsText(a.any) + "; " : std::string()) + "own slots: " + memEffectsText(own);
}

BarrierRegions computeBarrierRegions(const CfgInfo& cfg, const SyncClassifier& classify, SyncAccesses entry,
                                     SyncAccesses exit, bool propagate) {
  uint32_t n = cfg.size();
  BarrierRegions r;
  r.top.assign(n, {});
  r.bottom.assign(n, {});
  if (!propagate) {
    r.top.assign(n, SyncAccesses::anyOf(MemEffect::All));
    r.bottom.assign(n, SyncAccesses::anyOf(MemEffect::All));
    return r;
  }
  // Per block: the accesses before its first separator (all of it when it has none) and after
  // its last one.
  std::vector<SyncAccesses> head(n), tail(n);
  std::vector<char> hasSep(n, 0);
  for (uint32_t x = 0; x < n; ++x)
    for (const Instruction* i : cfg.rpo[x]->insts()) {
      if (isFullCtaBarrier(*i)) {
        hasSep[x] = 1;
        tail[x] = {};
        continue;
      }
      SyncAccesses a = classify(*i);
      if (!hasSep[x]) head[x] |= a;
      tail[x] |= a;
    }
  std::vector<SyncAccesses> out(n), in(n);  // forward: at the bottom; backward: at the top
  for (bool again = true; again;) {
    again = false;
    for (uint32_t x = 0; x < n; ++x) {
      SyncAccesses t = x == 0 ? entry : SyncAccesses{};
      for (uint32_t p : cfg.pred[x]) t |= out[p];
      SyncAccesses o = hasSep[x] ? tail[x] : t | head[x];
      if (!(t == r.top[x]) || !(o == out[x])) again = true;
      r.top[x] = t;
      out[x] = o;
    }
    for (uint32_t y = n; y-- > 0;) {
      SyncAccesses b = cfg.succ[y].empty() ? exit : SyncAccesses{};
      for (uint32_t s : cfg.succ[y]) b |= in[s];
      SyncAccesses i = hasSep[y] ? head[y] : b | tail[y];
      if (!(b == r.bottom[y]) || !(i == in[y])) again = true;
      r.bottom[y] = b;
      in[y] = i;
    }
  }
  return r;
}

void forEachPosition(const CfgInfo& cfg, const BarrierRegions& regions, uint32_t x, const SyncClassifier& classify,
                     const std::function<void(size_t, const SyncAccesses&, const SyncAccesses&)>& visit) {
  const std::vector<Instruction*>& insts = cfg.rpo[x]->insts();
  std::vector<SyncAccesses> own(insts.size());
  std::vector<SyncAccesses> after(insts.size() + 1);
  after[insts.size()] = regions.bottom[x];
  for (size_t j = insts.size(); j-- > 0;) {
    own[j] = classify(*insts[j]);
    after[j] = isFullCtaBarrier(*insts[j]) ? SyncAccesses{} : after[j + 1] | own[j];
  }
  SyncAccesses above = regions.top[x];
  for (size_t j = 0; j < insts.size(); ++j) {
    visit(j, above, after[j + 1]);
    above = isFullCtaBarrier(*insts[j]) ? SyncAccesses{} : above | own[j];
  }
}

}  // namespace ptxopt
