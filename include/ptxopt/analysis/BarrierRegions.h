// The memory accesses between CTA barriers, for dead-sync and for the contexts of a function's
// call sites (MemoryEffects.h).
//
// A separator ends a region: a barrier every thread of the CTA waits at (isFullCtaBarrier). A
// call never is one, even when its callee holds a barrier: the callee may run it under a
// condition. A forward dataflow gives, at the top of each block, the accesses on some path from
// the previous separator (or the function's entry, where `entry` counts); a backward one gives,
// at the bottom, the accesses on some path to the next separator (or an exit, where `exit`
// counts). Loop back edges carry the end of an iteration to the top of the next.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ptxopt/analysis/CfgInfo.h"
#include "ptxopt/analysis/MemoryEffects.h"

namespace ptxopt {

// What a stretch of code may do to memory other threads see: accesses that may touch any
// thread's bytes, and accesses of thread-slot classes (ThreadSlots.h) in which each thread
// touches only its own bytes, 4 bits (MemEffects) per class, up to kMaxSlotClasses.
struct SyncAccesses {
  static constexpr unsigned kMaxSlotClasses = 16;
  MemEffects any = MemEffect::None;
  uint64_t own = 0;

  static SyncAccesses anyOf(MemEffects e) { return {e, 0}; }
  static SyncAccesses ownSlot(unsigned cls, MemEffects e) { return {MemEffect::None, uint64_t(e) << (4 * cls)}; }
  MemEffects ownOf(unsigned cls) const { return static_cast<MemEffects>((own >> (4 * cls)) & 15); }
  // Every access, whoever's bytes it touches.
  MemEffects all() const;
  SyncAccesses& operator|=(const SyncAccesses& o) {
    any |= o.any;
    own |= o.own;
    return *this;
  }
  friend SyncAccesses operator|(SyncAccesses a, const SyncAccesses& b) { return a |= b; }
  bool operator==(const SyncAccesses&) const = default;
};

// The spaces in which `above` and `below` form a hazard that a barrier between them orders: a
// write then a read or write, or a read then a write, by different threads. Two accesses of
// one thread-slot class never do.
MemEffects syncHazard(const SyncAccesses& above, const SyncAccesses& below);
// "reads shared; own slots: writes shared" and the like.
std::string syncAccessesText(const SyncAccesses& a);

using SyncClassifier = std::function<SyncAccesses(const Instruction&)>;

struct BarrierRegions {
  // Indexed like CfgInfo::rpo.
  std::vector<SyncAccesses> top;    // at the top of the block, since the previous separator
  std::vector<SyncAccesses> bottom; // at the bottom of the block, until the next separator
};

// `propagate` false: no dataflow; whatever lies beyond a block counts as every access.
BarrierRegions computeBarrierRegions(const CfgInfo& cfg, const SyncClassifier& classify, SyncAccesses entry,
                                     SyncAccesses exit, bool propagate = true);

// Calls visit(index, above, below) for each instruction of block rpo[x]: above, the accesses
// from the previous separator up to the instruction (itself excluded); below, from after it to
// the next separator.
void forEachPosition(const CfgInfo& cfg, const BarrierRegions& regions, uint32_t x, const SyncClassifier& classify,
                     const std::function<void(size_t, const SyncAccesses&, const SyncAccesses&)>& visit);

}  // namespace ptxopt
