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

namespace ptxopt::emu {

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
  uint64_t epoch = 0;            // CTA barrier epoch
  uint64_t warpEpoch = 0;        // warp synchronizations of the thread's warp
  uint32_t warp = 0;
  bool atomic = false;
  bool strong = false;           // atomic, or ld/st .volatile/.relaxed/.acquire/.release: two strong accesses do not race
  bool valid = false;
  bool async = false;            // a cp.async's write (at its issue, or landed at its wait)
};
struct Shadow {
  Access write, read;
  uint8_t written = 0;        // the byte the last write stored, when known (a plain store)
  bool writtenKnown = false;
};
// For race reports: how an access is named ("read", "strong write", "atomic", "cp.async
// write") and where ("at 0x1f").
std::string accessKind(const Access& x, bool isWrite);
std::string raceWhere(uint64_t byte);

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
  // An access to shared bytes that a cp.async may still write: a race with that copy.
  void checkInFlight(const Access& a, const std::string& kind, uint64_t addr, uint64_t size);
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
  void texture(Warp& w, const DInst& I, uint32_t exec);
  void surface(Warp& w, const DInst& I, uint32_t exec);
  // The texture or surface object `h` names for lane `lane` (faulting when there is none, when it
  // is the other kind, or when its texels are no longer in device memory), and its texels.
  const TextureDesc& objectOf(Warp& w, const DInst& I, int lane, uint64_t h, bool surface, const uint8_t*& texels);
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
  };
  std::unordered_map<uint64_t, InFlight> inFlight_;
  uint64_t nextCopyId_ = 1;
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
  // An access (`kind` at a.line by a.thread) to shared bytes that the cp.async at `copyLine` of
  // `copyThread` (same CTA) may still write.
  void reportInFlightRace(const Access& a, const std::string& kind, uint32_t copyLine, uint32_t copyThread,
                          const std::string& where);

 private:
  // The entry named `name` (the only one when empty), or an error starting with `where`.
  bool chooseKernel(const std::string& name, const std::string& where, std::string& error);
  // The block against the kernel's launch bounds; sets the CTA and warp counts.
  bool checkShape(const std::string& where, std::string& error);
};

}  // namespace ptxopt::emu
