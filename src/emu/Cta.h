// The classes behind a launch: Launch (memory, parameters, results) and CtaRunner (one CTA:
// warps, reconvergence stacks, barriers, instruction semantics). Internal to src/emu.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "Machine.h"
#include "ptxopt/emu/Device.h"
#include "ptxopt/emu/TensorMap.h"

namespace ptxopt::emu {

// Every lane of a warp active: the tensor-core instructions (mma, wgmma) require it.
constexpr uint32_t kFullWarp = 0xFFFFFFFFu;

// Population count without a libgcc call on hosts built for baseline x86-64.
inline uint32_t popc(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

template <typename F>
inline void forLanes(uint32_t mask, F&& f) {
  while (mask) {
    int lane = std::countr_zero(mask);
    f(lane);
    mask &= mask - 1;
  }
}

// Element accesses of ld/st and of the tensor cores' loads and stores. CTAs on different host
// threads may touch the same global bytes (a kernel that races, or reads what another CTA
// updates atomically): relaxed atomic accesses keep that defined for the host, at the cost of a
// plain move. Elements are naturally aligned (misalignment faulted before).
inline uint64_t loadElement(const uint8_t* p, unsigned eb) {
  switch (eb) {
    case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n(reinterpret_cast<const uint16_t*>(p), __ATOMIC_RELAXED);
    case 4: return __atomic_load_n(reinterpret_cast<const uint32_t*>(p), __ATOMIC_RELAXED);
    case 8: return __atomic_load_n(reinterpret_cast<const uint64_t*>(p), __ATOMIC_RELAXED);
    default: {
      uint64_t raw = 0;
      std::memcpy(&raw, p, std::min(eb, 8u));
      return raw;
    }
  }
}
inline void storeElement(uint8_t* p, unsigned eb, uint64_t v) {
  switch (eb) {
    case 1: __atomic_store_n(p, static_cast<uint8_t>(v), __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n(reinterpret_cast<uint16_t*>(p), static_cast<uint16_t>(v), __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n(reinterpret_cast<uint32_t*>(p), static_cast<uint32_t>(v), __ATOMIC_RELAXED); break;
    case 8: __atomic_store_n(reinterpret_cast<uint64_t*>(p), v, __ATOMIC_RELAXED); break;
    default: std::memcpy(p, &v, std::min(eb, 8u)); break;
  }
}

// `n` bytes between global memory and a host buffer, in naturally aligned pieces of up to 8
// bytes, each a relaxed atomic access as ld/st make (CTAs on other host threads may touch them).
inline void loadGlobalBytes(uint8_t* out, const uint8_t* p, uint64_t n) {
  for (uint64_t off = 0; off < n;) {
    unsigned piece = 8;
    while (piece > n - off || (reinterpret_cast<uintptr_t>(p + off) & (piece - 1))) piece /= 2;
    const uint64_t v = loadElement(p + off, piece);
    std::memcpy(out + off, &v, piece);
    off += piece;
  }
}
inline void storeGlobalBytes(uint8_t* p, const uint8_t* in, uint64_t n) {
  for (uint64_t off = 0; off < n;) {
    unsigned piece = 8;
    while (piece > n - off || (reinterpret_cast<uintptr_t>(p + off) & (piece - 1))) piece /= 2;
    uint64_t v = 0;
    std::memcpy(&v, in + off, piece);
    storeElement(p + off, piece, v);
    off += piece;
  }
}

// Lanes grouped by a per-lane key (a branch target, a callee), in the order the keys first
// appear from the lowest lane: (key, lanes).
using LaneGroups = std::vector<std::pair<uint32_t, uint32_t>>;
template <typename KeyOf>
LaneGroups groupLanes(uint32_t lanes, KeyOf&& keyOf) {
  LaneGroups groups;
  forLanes(lanes, [&](int lane) {
    uint32_t key = keyOf(lane);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) groups.emplace_back(key, 1u << lane);
    else it->second |= 1u << lane;
  });
  return groups;
}

inline std::string laneList(uint32_t mask) {
  std::string out;
  int lane = 0;
  while (lane < 32) {
    if (!((mask >> lane) & 1)) {
      ++lane;
      continue;
    }
    int end = lane;
    while (end + 1 < 32 && ((mask >> (end + 1)) & 1)) ++end;
    if (!out.empty()) out += ",";
    out += std::to_string(lane);
    if (end > lane) out += "-" + std::to_string(end);
    lane = end + 1;
  }
  return out.empty() ? "none" : out;
}

// Race detection: the last write and the last read of each byte.
struct Access {
  uint32_t thread = UINT32_MAX;  // CTA-linear thread, or a global thread id for global memory
  uint32_t cta = 0;
  uint32_t line = 0;
  uint32_t mbarClock = 0;        // the thread's mbarrier clock (CtaRunner::MbarOrder) at the access
  uint64_t epoch = 0;            // CTA barrier epoch
  uint64_t warpEpoch = 0;        // warp synchronizations of the thread's warp
  uint16_t warp = 0;             // the thread's warp (a CTA has at most 32)
  bool atomic = false;
  bool strong = false;           // atomic, or ld/st .volatile/.relaxed/.acquire/.release: two strong accesses do not race
  bool valid = false;
  bool async = false;            // a cp.async's write (at its issue, or landed at its wait)
  bool bulk = false;             // a cp.async.bulk's write
  bool viaMbarrier = false;      // landed by an mbarrier's phase completion: ordered for the threads
                                 // that observed that completion, not for the issuing thread as such
};
struct Shadow {
  Access write, read;
  uint8_t written = 0;        // the byte the last write stored, when known (a plain store)
  bool writtenKnown = false;
};
// Bytes an asynchronous copy has not finished with: the shared destination of a cp.async or of a
// bulk copy (any access races), the shared source of a bulk store, or the global source of a bulk
// or tensor copy into shared memory (BulkSourceRead; a write to a source races).
enum class InFlightKind : uint8_t { CopyWrite, BulkWrite, BulkRead, BulkSourceRead };

// For race reports: how an access is named ("read", "strong write", "atomic", "cp.async
// write") and where ("at 0x1f").
std::string accessKind(const Access& x, bool isWrite);
std::string raceWhere(uint64_t byte);

// The value an atomic `op` of type `t` (`bits` wide) leaves where `old` was, with operand `y`
// (and `swap`, cas's new value).
uint64_t atomicCombine(AtomOp op, ScalarType t, unsigned bits, uint64_t old, uint64_t y, uint64_t swap);
// Replaces the naturally aligned 4- or 8-byte value at `p` with combine(old), atomically for
// the host threads when it is `global` memory (CTAs on other host threads share it); the old value.
template <typename Combine>
uint64_t atomicUpdate(uint8_t* p, unsigned eb, bool global, Combine&& combine) {
  uint64_t old = 0;
  if (!global) {
    std::memcpy(&old, p, eb);
    const uint64_t v = combine(old);
    std::memcpy(p, &v, eb);
    return old;
  }
  if (eb == 4) {
    uint32_t* q = reinterpret_cast<uint32_t*>(p);
    uint32_t o = __atomic_load_n(q, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(q, &o, static_cast<uint32_t>(combine(o)), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return o;
  }
  uint64_t* q = reinterpret_cast<uint64_t*>(p);
  uint64_t o = __atomic_load_n(q, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(q, &o, combine(o), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return o;
}

// ---- one launch -----------------------------------------------------------------------------

class Launch;

class CtaRunner {
 public:
  CtaRunner(Launch& l, uint32_t linear);
  void run();

  Metrics metrics;
  std::string output;
  std::string fault;
  FaultKind faultKind = FaultKind::None;

 private:
  friend class Launch;
  enum class Step { Progress, Blocked, Done };

  Step step(Warp& w, uint64_t quantum);
  void execute(Warp& w, const DInst& I);
  void advance(Warp& w) { ++w.stack.back().pc; }

  // Frames and the reconvergence stack.
  Frame* newFrame(Warp& w, const DFunction& fn, Frame* caller, const DCall* call);
  void push(Warp& w, const StackEntry& e);
  void popTop(Warp& w);
  void releaseFrame(Warp& w, Frame* f);
  void diverge(Warp& w, const LaneGroups& paths, uint32_t rpc);
  bool rotate(Warp& w);
  void removeLanes(Warp& w, uint32_t lanes, const Frame* onlyFrame);

  // Barriers.
  void arriveBarrier(Warp& w, const DInst& I, uint32_t exec);
  void warpArrives(Warp& w);
  void checkBarrier(uint32_t id);
  void recheckBarriersAfterExit();
  void arriveWarpSync(Warp& w, const DInst& I, uint32_t exec);
  void releaseWarpSyncs(Warp& w, bool all);
  void warpSynced(Warp& w, uint32_t lanes);

  // Memory.
  uint64_t symbolAddress(Warp& w, const SymRef& s, int64_t offset, StateSpace& space);
  // The host bytes of an access (faulting when it is out of bounds or misaligned); `resolved`
  // receives the state space a generic address turned out to be in.
  uint8_t* memory(Warp& w, const DInst& I, StateSpace space, uint64_t addr, uint64_t size, int lane, bool write, bool atomic,
                  const SymRef* sym, StateSpace* resolved = nullptr);
  void recordAccess(Warp& w, const DInst& I, StateSpace space, uint64_t addr, uint64_t size, int lane, bool write, bool atomic);
  // The race checker's record of an access by `lane` of `w` at `I`, now (thread, CTA, line, epochs).
  Access accessBy(const Warp& w, const DInst& I, int lane) const;
  // Whether access `o` is ordered before access `a` of warp `w` (race check).
  bool ordered(const Warp& w, const Access& o, const Access& a) const;
  // An access to bytes of `inFlight` (inFlight_ or globalInFlight_) that a copy may still write
  // (any access), or read (a write): a race with that copy.
  struct InFlight;
  void checkInFlight(const std::unordered_map<uint64_t, InFlight>& inFlight, const Access& a, const std::string& kind,
                     uint64_t addr, uint64_t size, bool write);
  // A texture fetch or surface read (`kind`) of global bytes: texture and surface reads go
  // through a cache the launch's own writes do not update, so reading a byte that any write of
  // this launch stored returns undefined data on a GPU, barrier or not. `orderedOnly`: only
  // writes ordered before the read (a surface read, whose unordered writes recordAccess reports
  // as ordinary races).
  void checkIncoherentRead(Warp& w, const DInst& I, const char* kind, uint64_t addr, uint64_t size, int lane,
                           bool orderedOnly);
  // While a plain store runs under the race checker: the bytes it stores (recordAccess tells
  // write-write races of the same bytes apart).
  const uint8_t* storeBytes_ = nullptr;
  uint64_t generic(StateSpace s, uint64_t addr) const { return windowBase(s) + addr; }

  // Instructions.
  struct MemRef {
    StateSpace space = StateSpace::Generic;
    const uint64_t* base = nullptr;  // per-lane address register, or
    const SymRef* sym = nullptr;     // a parameter symbol, or
    uint64_t symAddr = 0;            // a resolved address
    uint64_t address(const DInst& I, int lane) const { return base ? base[lane] + static_cast<uint64_t>(I.addrOffset) : symAddr; }
  };
  MemRef memRefOf(Warp& w, const DInst& I);
  void load(Warp& w, const DInst& I, uint32_t exec);
  void store(Warp& w, const DInst& I, uint32_t exec);
  void atomic(Warp& w, const DInst& I, uint32_t exec);
  // cp.async and its groups (docs/EMULATOR.md, "Asynchronous copies").
  void asyncCopy(Warp& w, const DInst& I, uint32_t exec);
  void asyncCommit(Warp& w, uint32_t exec);
  void asyncWait(Warp& w, const DInst& I, uint32_t exec);
  // The race check of an asynchronous write at its issue: bytes another copy may still write, and
  // the accesses before it that nothing orders before it; then the bytes are in flight.
  void issueAsyncWrite(const Warp& w, const DInst& I, int lane, uint64_t dst, uint64_t size, uint64_t copyId, bool bulk);
  // Lands the bytes of an asynchronous copy in shared memory: with the race check, the write of
  // `thread` now (at its wait) or, `viaMbarrier`, of the phase completion that landed it.
  void landShared(uint32_t thread, uint32_t dst, const uint8_t* bytes, uint64_t size, uint32_t line, uint64_t copyId, bool bulk,
                  bool viaMbarrier);
  // mbarrier (Mbarrier.cpp; docs/EMULATOR.md, "mbarrier"). Returns false when the warp parks
  // (a try_wait none of whose lanes' phases has completed): the pc stays.
  bool mbarrier(Warp& w, const DInst& I, uint32_t exec);
  // The shared offset of lane's mbarrier at `addr` (in `space`: shared or generic), faulting when
  // it is not an aligned address in the CTA's shared memory; the access is recorded for the race
  // check as a write and/or an atomic.
  uint32_t mbarrierAt(Warp& w, const DInst& I, int lane, StateSpace space, uint64_t addr, bool write, bool atomic);
  // The race check's order through an mbarrier: thread `t` arrives (releases) or sees the phase
  // complete (acquires).
  void releaseTo(uint32_t t, uint32_t mbar);
  void acquireFrom(uint32_t t, uint32_t mbar);
  void completePhase(uint32_t mbar);
  // The complete-tx of the bulk copies on `mbar` that have not completed yet (and the phase
  // completion it may bring); false when there were none.
  bool completeBulkCopies(uint32_t mbar);
  // For messages: "phase parity 0, pending arrivals 2 of 3, tx-count 64", or why it is not one.
  std::string describeMbarrier(uint32_t mbar) const;
  void wakeMbarrierWaiters();
  void bulkCopy(Warp& w, const DInst& I, uint32_t exec);
  // The box as it lands at shared address `dst` (swizzled when the map says so); `reads` (with
  // the race check): the global ranges it read, the elements inside the tensor.
  std::vector<uint8_t> readTensorBox(Warp& w, const DInst& I, int lane, const DBulkCopy& c, uint64_t mapAddr, uint64_t dst,
                                     std::vector<std::pair<uint64_t, uint32_t>>* reads);
  TensorMapDesc tensorMapAt(Warp& w, const DInst& I, int lane, const DBulkCopy& c, uint64_t mapAddr);
  void tensorStore(Warp& w, const DInst& I, int lane, const DBulkCopy& c, uint64_t mapAddr, uint64_t src);
  void bulkCommit(Warp& w, uint32_t exec);
  void bulkWait(Warp& w, const DInst& I, uint32_t exec);
  void landBulkStores(uint32_t thread, uint64_t limit);
  // The sources of the thread's bulk stores of groups below `limit` are read: no longer in flight.
  void finishBulkReads(uint32_t thread, uint64_t limit);
  void mapa(Warp& w, const DInst& I, uint32_t exec);
  void texture(Warp& w, const DInst& I, uint32_t exec);
  void surface(Warp& w, const DInst& I, uint32_t exec);
  void textureQuery(Warp& w, const DInst& I, uint32_t exec);
  // tensormap.replace and tensormap.cp_fenceproxy (Mbarrier.cpp), through tensorMapBytes, which
  // reads or writes (the 8-byte pieces that differ from `before`, when given) a map's 128 bytes.
  void tensormapReplace(Warp& w, const DInst& I, uint32_t exec);
  void tensormapCopy(Warp& w, const DInst& I, uint32_t exec);
  void tensorMapBytes(Warp& w, const DInst& I, StateSpace space, uint64_t addr, int lane, uint8_t bytes[128], bool write,
                      const uint8_t* before);
  // The texture or surface object `h` names for lane `lane` (faulting when there is none, when it
  // is the other kind, or when its texels are no longer in device memory), with its texels in
  // `seen`, which keeps the last object looked up: lanes with one handle look it up once.
  struct ObjectSeen {
    uint64_t handle = 0;
    const TextureDesc* desc = nullptr;
    const uint8_t* texels = nullptr;
  };
  const TextureDesc& objectOf(Warp& w, const DInst& I, int lane, uint64_t h, bool surface, ObjectSeen& seen);
  void call(Warp& w, const DInst& I, uint32_t exec);
  void printf(Warp& w, const DInst& I, const DCall& c, uint32_t exec);
  void warpCollective(Warp& w, const DInst& I, uint32_t exec);
  // The tensor-core instructions (Matrix.cpp; docs/EMULATOR.md, "Tensor cores").
  void matrix(Warp& w, const DInst& I, uint32_t exec);
  void matrixLoad(Warp& w, const DInst& I, const DMatrixOp& op);
  void matrixStore(Warp& w, const DInst& I, const DMatrixOp& op);
  void wmmaAccess(Warp& w, const DInst& I, const DMatrixOp& op);
  // wgmma (Wgmma.cpp; docs/EMULATOR.md, "Tensor cores", warpgroup MMA).
  struct PendingWgmma {
    const DMatrixOp* op = nullptr;
    Frame* frame = nullptr;
    uint64_t descA = 0, descB = 0;
    bool scaleD = true;
    std::vector<uint64_t> a;          // register A: op->a's 4 registers x 32 lanes, at issue
    std::vector<uint64_t> accAtIssue;  // the accumulator at issue when no earlier pending op writes it
    uint32_t line = 0;
    uint64_t group = 0;
    uint64_t epoch = 0;  // the CTA's barrier epoch at issue (the race check)
  };
  struct WgmmaWarp {
    std::vector<PendingWgmma> ops;  // issued, not completed, oldest first
    uint64_t committed = 0;         // groups committed so far
  };
  std::vector<WgmmaWarp> wgmma_;  // by warp index; allocated at the CTA's first wgmma
  void wgmma(Warp& w, const DInst& I, uint32_t exec);
  void checkWarpgroup(const Warp& w, const DInst& I, uint32_t exec);
  void wgmmaIssue(Warp& w, const DInst& I);
  void wgmmaComplete(Warp& w, const DInst& I, const PendingWgmma& p);
  // The race check of bytes `p` reads (as `thread`) at completion: a write after a barrier that followed the
  // issue was made while the operation was in flight. True when it reported one.
  bool checkWgmmaRead(const PendingWgmma& p, uint32_t thread, uint64_t addr, unsigned bytes);
  void combineCollective(std::span<const Warp::CollectivePart> parts);

  [[noreturn]] void faultAt(const Warp& w, int lane, const DInst& I, const std::string& what,
                            FaultKind kind = FaultKind::Other);
  std::string describeInstruction(const DInst& I) const;
  std::string threadName(const Warp& w, int lane) const;

  Launch& L_;
  bool fastPaths_ = true;
  uint32_t linear_;
  uint32_t ctaid_[3];
  std::vector<Warp> warps_;
  std::vector<uint8_t> shared_;
  std::vector<std::vector<uint8_t>> local_;  // per CTA-linear thread
  struct BarrierState {
    uint32_t arrivedWarps = 0;
    uint32_t countWarps = 0;  // from the thread-count operand; 0 = every warp with live lanes
    uint32_t line = 0;
    uint32_t popc = 0;
    bool all = true, any = false;
    struct Result {
      Warp* warp;
      Frame* frame;
      uint32_t slot;
      uint32_t lanes;
      BarrierReduce op;
    };
    std::vector<Result> results;
  };
  BarrierState barriers_[16];
  uint64_t barrierEpoch_ = 0;
  std::unordered_map<uint64_t, Shadow> sharedShadow_;
  // cp.async: per thread, the copies issued and not yet landed, each with the group it belongs
  // to (`groups` when it is not committed yet); `groups` counts the thread's commits since the
  // CTA's first cp.async. Allocated at that first cp.async, so kernels without one pay nothing.
  struct PendingCopy {
    uint32_t mbar = 0;    // 1 + the shared offset of the mbarrier whose phase completion also lands
                          // it (cp.async.mbarrier.arrive); 0 for none
    uint32_t dst = 0;     // shared offset
    uint8_t size = 0;     // cp-size
    uint8_t bytes[16] = {};
    uint32_t line = 0;
    uint64_t group = 0;
    uint64_t id = 0;      // the race check's name for the copy
  };
  struct AsyncThread {
    std::vector<PendingCopy> copies;
    uint64_t groups = 0;
  };
  std::vector<AsyncThread> async_;  // by CTA-linear thread
  // With the race check: the shared bytes that an issued copy may still write, and which copy.
  struct InFlight {
    uint64_t copy = 0;
    uint32_t thread = 0;
    uint32_t line = 0;
    InFlightKind kind = InFlightKind::CopyWrite;
  };
  std::unordered_map<uint64_t, InFlight> inFlight_;
  // The global bytes a cp.async.bulk (or tensor copy) into shared memory may still read: from its
  // issue until its landing (the phase of its mbarrier completes). A write to them races.
  std::unordered_map<uint64_t, InFlight> globalInFlight_;
  uint64_t nextCopyId_ = 1;
  // cp.async.bulk into shared memory: the bytes read at the issue, completing (complete-tx) when
  // a wait on their mbarrier needs them and landing when its phase completes (in issue order).
  struct BulkCopy {
    uint32_t mbar = 0;  // shared offset of the mbarrier
    uint32_t dst = 0;   // shared offset
    std::vector<uint8_t> bytes;
    uint32_t line = 0, thread = 0;
    uint64_t id = 0;
    bool txDone = false;  // its complete-tx was performed
    // With the race check: the global ranges (address, bytes) it read, in flight until it lands.
    std::vector<std::pair<uint64_t, uint32_t>> globalReads;
  };
  std::vector<BulkCopy> bulkToShared_;
  // cp.async.bulk into global memory, per thread: the stores not landed yet with their bulk
  // group (`groups` while not committed). They land at a wait_group of the thread (not .read)
  // that completes their group, and at the latest when the CTA ends.
  struct BulkStore {
    uint64_t dst = 0;  // global address
    std::vector<uint8_t> bytes;
    uint64_t group = 0;
    uint32_t line = 0;
    uint32_t src = 0;  // shared offset of the source, in flight (BulkRead) until a wait_group{.read}
    uint64_t id = 0;
    bool reading = false;  // the source is still in flight
    // cp.reduce.async.bulk: each element of type `type` lands as `reduce` of the destination's
    // and its own.
    bool reduction = false;
    AtomOp reduce = AtomOp::Add;
    ScalarType type = ScalarType::None;
  };
  struct BulkThread {
    std::vector<BulkStore> stores;
    uint64_t groups = 0;
  };
  std::vector<BulkThread> bulk_;  // by CTA-linear thread; allocated at the CTA's first bulk copy
  // Entries parked at an mbarrier.try_wait (StackEntry::barrier == kMbarrierPark).
  uint32_t mbarParked_ = 0;
  // The race check's order through mbarriers (allocated at the CTA's first mbarrier operation
  // under --check-races): vector clocks over the threads plus one slot for the copies that phase
  // completions land. An arrive releases: the barrier's pending vector takes the thread's clock
  // (and what the thread acquired); a phase completion publishes it; a wait that sees the phase
  // complete acquires it. An access `o` is ordered before thread t's access when t acquired a
  // clock of o's thread above the one o was made at.
  struct MbarOrder {
    uint32_t slots = 0;
    std::vector<uint32_t> clock;     // per slot
    std::vector<uint32_t> acquired;  // slots x slots: acquired[t * slots + s]
    struct Barrier {
      std::vector<uint32_t> pending, completed;
    };
    std::unordered_map<uint32_t, Barrier> barriers;  // by shared offset
    uint32_t proxy() const { return slots - 1; }
  };
  std::unique_ptr<MbarOrder> order_;
  MbarOrder::Barrier& orderOf(uint32_t mbar);
  std::optional<std::mt19937_64> rng_;  // the random schedule only
  uint64_t executed_ = 0;
};

// A module's .global and .const variables in memory: each .global variable an allocation of
// global memory, and the constant image the kernels read through .const addresses (a copy of
// Program::constImage with the addresses its initializers name). A ptxrun launch places them in
// its own memory and keeps the image in `constOwned`; a Device places them once, at load, with
// the image an allocation of its global memory too (`constAddr`), which is how the host writes
// .const variables.
struct ModuleMemory {
  std::vector<uint64_t> globalVarAddr;  // by Program::globals
  uint8_t* constBytes = nullptr;
  uint64_t constSize = 0;
  uint64_t constAddr = 0;               // the image's global address; 0 when it is `constOwned`
  std::vector<uint8_t> constOwned;
};

// Allocates P's variables in `mem` and writes their initializers, numbers and the addresses of
// variables and functions; with `constInGlobal` the constant image is an allocation of `mem`.
// False with `error` when an initializer names something that is not a variable or function or
// host memory runs out.
// With `constInGlobal` (a Device), the constant image is a global allocation too, and managed
// variables are host-mapped (GlobalMemory::allocateHostMapped) where the memory maps host pages.
bool placeModuleVariables(const Program& P, GlobalMemory& mem, bool constInGlobal, ModuleMemory& out, std::string& error);

// The size of a kernel's parameter block: the end of its last parameter.
uint64_t kernelParamBlockSize(const DFunction& kernel);

class Launch {
 public:
  Launch(const Program& p, const RunOptions& opts) : P(p), opts(opts) {}

  // ptxrun's launch: the spec's buffers and the module's variables in memory the launch owns.
  bool prepare(const LaunchSpec& spec, std::string& error);
  // A Device's launch: over memory and module variables it does not own; the parameters are the
  // bytes of the kernel's parameter block.
  bool prepare(GlobalMemory& mem, const ModuleMemory& vars, const DeviceLaunch& l, std::string& error);
  void runAll(RunResult& result);

  const Program& P;
  RunOptions opts;
  const LaunchSpec* spec = nullptr;   // ptxrun's launch only (its buffers are the results)
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
  const DFunction* kernel = nullptr;
  GlobalMemory* global = nullptr;     // where global addresses resolve: ownGlobal or a Device's
  const ModuleMemory* vars = nullptr;  // the module's variables: ownVars or a Device's
  std::unique_ptr<GlobalMemory> ownGlobal;
  ModuleMemory ownVars;
  std::vector<uint64_t> bufferAddr;   // by spec parameter (buffers only)
  std::vector<uint8_t> kernelParams;
  uint32_t threadsPerCta = 0;
  uint32_t warpsPerCta = 0;
  uint64_t totalCtas = 0;
  std::atomic<uint64_t> instructions{0};
  std::atomic<bool> stop{false};
  std::mutex raceMutex;
  std::unordered_map<uint64_t, Shadow> globalShadow;
  std::map<std::tuple<std::string, uint32_t, uint32_t, std::string, std::string, bool>, RaceReport> races;

  // `sameValue`: a write-write race in which the later write stores the byte the earlier one did.
  // `why` replaces "with no barrier between them" (a hazard that no barrier removes).
  void reportRace(const std::string& space, const Access& a, const Access& b, const std::string& kindA,
                  const std::string& kindB, const std::string& where, bool sameValue = false,
                  const char* why = nullptr);
  // An access (`kind` at a.line by a.thread) to shared bytes that the asynchronous copy at
  // `copyLine` of `copyThread` (same CTA) may still write or (BulkRead) read.
  void reportInFlightRace(const Access& a, const std::string& kind, uint32_t copyLine, uint32_t copyThread,
                          const std::string& where, InFlightKind copy);

 private:
  // The entry named `name` (the only one when empty), or an error starting with `where`.
  bool chooseKernel(const std::string& name, const std::string& where, std::string& error);
  // The block against the kernel's launch bounds; sets the CTA and warp counts.
  bool checkShape(const std::string& where, std::string& error);
  bool writeTensorMap(const LaunchSpec& s, size_t k, uint8_t* out, std::string& error);
};

}  // namespace ptxopt::emu
