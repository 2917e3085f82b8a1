// Run-time state of a launch: memory, CTAs, warps, frames.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "Program.h"
#include "ptxopt/emu/Emulator.h"
#include "ptxopt/emu/Texture.h"

namespace ptxopt::emu {

// Ends the execution of a CTA with a report.
struct KernelFault {
  std::string message;
  FaultKind kind = FaultKind::Other;
};

// Global memory: allocations at fixed addresses in [kGlobalBase, kConstWindow), each with its own
// host bytes. The map is changed only between launches (a launch's own buffers, a Device's
// allocate/release/load), so lookups during a launch take no lock.
class GlobalMemory {
 public:
  // A buffer (ptxrun's spec buffers, a Device's allocations) or a module's variable or
  // constant image: only buffers can be released.
  enum class Kind : uint8_t { Buffer, Variable };
  // Bytes from calloc, or (mappedLength > 0) pages mapped at the allocation's own address.
  struct FreeBytes {
    FreeBytes() : mappedLength(0) {}
    explicit FreeBytes(uint64_t length) : mappedLength(length) {}
    uint64_t mappedLength;
    void operator()(uint8_t* p) const;
  };
  struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    std::string name;
    Kind kind = Kind::Buffer;
    std::unique_ptr<uint8_t[], FreeBytes> bytes;
    bool hostMapped() const { return bytes.get_deleter().mappedLength != 0; }
  };
  // `size` zeroed bytes at an address aligned to `align` (at least 256), with a gap of at least
  // 256 bytes to its neighbours; 0 when the host has no memory for it or the window is full.
  // New addresses are taken above every earlier allocation, freed or not; only when the window
  // is exhausted does an allocation go into a gap that a release left.
  uint64_t allocate(uint64_t size, uint64_t align, std::string name, Kind kind = Kind::Buffer);
  // A buffer whose bytes the host process reaches at the same address as kernels (CUDA's
  // managed and mapped host memory): zeroed pages mapped at that address in this process. An
  // address the process already uses is skipped; 0 when none is found (a sanitizer's shadow
  // memory covers the window, for one).
  uint64_t allocateHostMapped(uint64_t size, std::string name, Kind kind = Kind::Buffer);
  // Without host mapping (a second memory kept in step with one that maps), allocateHostMapped
  // places its allocations alike, page-aligned, with bytes of their own.
  void setMapHost(bool map) { mapHost_ = map; }
  // A buffer at exactly `base` (256-byte aligned, free in this window), with bytes of its own:
  // a second memory kept in step with another, whose allocation there may be host-mapped. 0
  // when taken.
  uint64_t allocateAt(uint64_t base, uint64_t size, std::string name);
  // A window that ends below the const window (for tests of the window running out).
  explicit GlobalMemory(uint64_t end = kConstWindow) : end_(end) {}
  // Frees the allocation of `kind` that starts at `base`; false when none starts there.
  bool release(uint64_t base, Kind kind = Kind::Buffer);
  // The allocation whose bytes hold `addr`, or nullptr.
  const Allocation* holding(uint64_t addr) const;
  // The host bytes of [addr, addr+size) when one allocation holds them all, else nullptr.
  uint8_t* find(uint64_t addr, uint64_t size) const {
    auto it = std::upper_bound(allocs_.begin(), allocs_.end(), addr, [](uint64_t v, const Allocation& a) { return v < a.base; });
    if (it == allocs_.begin()) return nullptr;
    --it;
    if (addr + size > it->base + it->size || addr + size < addr) return nullptr;
    return it->bytes.get() + (addr - it->base);
  }
  // For messages: the allocation nearest to `addr`, or the freed one that held it.
  std::string describe(uint64_t addr) const;
  // Bytes in live allocations of one kind.
  uint64_t bytesIn(Kind kind) const;
  // The live allocations, by address.
  const std::vector<Allocation>& allocations() const { return allocs_; }

  // Texture objects: handles 1, 2, 3, ... in creation order, never reused, so a destroyed
  // handle is told from one that never was. Like the memory map, the table changes only
  // between launches.
  uint64_t createTexture(const TextureDesc& d) {
    textures_.push_back({d, true});
    return textures_.size();
  }
  bool destroyTexture(uint64_t handle) {
    if (!handle || handle > textures_.size() || !textures_[handle - 1].live) return false;
    textures_[handle - 1].live = false;
    return true;
  }
  // The texture of a live handle, or nullptr.
  const TextureDesc* texture(uint64_t handle) const {
    return handle && handle <= textures_.size() && textures_[handle - 1].live ? &textures_[handle - 1].desc : nullptr;
  }
  bool textureDestroyed(uint64_t handle) const { return handle && handle <= textures_.size() && !textures_[handle - 1].live; }

 private:
  struct Freed {
    uint64_t base = 0, size = 0;
    std::string name;
  };
  // Where an allocation of `size` bytes aligned to `align` goes (bumping next_, or a gap), or 0.
  uint64_t place(uint64_t size, uint64_t align);
  // Whether [base, base+size) overlaps no live allocation (with the gap kept between them).
  bool isFree(uint64_t base, uint64_t size) const;
  uint64_t insert(uint64_t base, uint64_t size, std::string name, Kind kind, std::unique_ptr<uint8_t[], FreeBytes> bytes);
  std::vector<Allocation> allocs_;  // sorted by base
  struct TextureEntry {
    TextureDesc desc;
    bool live = false;
  };
  std::vector<TextureEntry> textures_;  // by handle - 1
  std::deque<Freed> freed_;         // the latest releases, for messages
  uint64_t next_ = kGlobalBase;
  uint64_t end_ = kConstWindow;
  bool mapHost_ = true;
};

struct Frame {
  const DFunction* fn = nullptr;
  std::vector<uint64_t> regs;    // fn->numSlots x 32 lanes
  std::vector<uint8_t> params;   // fn->paramBytes x 32 lanes
  uint64_t localBase = 0;        // local-space offset of this activation's .local block
  uint64_t localEnd = 0;
  Frame* caller = nullptr;
  const DCall* call = nullptr;   // the call that created this frame
  uint32_t refs = 0;             // reconvergence-stack entries that run in this frame
  uint64_t* slot(uint32_t s) { return regs.data() + static_cast<size_t>(s) * 32; }
};

struct StackEntry {
  Frame* frame = nullptr;
  uint32_t pc = 0;
  uint32_t rpc = kNoPc;
  uint32_t mask = 0;
  bool parked = false;           // waiting at a barrier
  int8_t barrier = -1;           // which: 0..15, or kWarpSyncPark for bar.warp.sync
  uint64_t syncGroup = 0;        // at a bar.warp.sync or .sync collective: its Warp::PendingSync
};

// StackEntry::barrier of an entry whose lanes wait at a bar.warp.sync or a .sync collective.
inline constexpr int8_t kWarpSyncPark = -2;
// StackEntry::barrier of an entry parked at an mbarrier.try_wait (syncGroup: the mbarrier's
// shared offset), until a phase completes or the barrier's bytes change.
inline constexpr int8_t kMbarrierPark = -3;

struct Warp {
  uint32_t index = 0;
  uint32_t valid = 0;            // lanes that are threads of the CTA
  uint32_t exited = 0;
  std::vector<StackEntry> stack;
  std::vector<std::unique_ptr<Frame>> frames;
  std::array<uint32_t, 32> tid[3];
  uint64_t localTop = 0;         // next free byte of the lanes' local memory (all lanes alike)
  uint64_t clock = 0;
  uint64_t syncEpoch = 0;        // warp-level synchronizations so far (race detection)
  // With the race check: for lanes x and y, pairSync[32x + y] is the syncEpoch of the last
  // warp-level synchronization both took part in.
  std::vector<uint64_t> pairSync;
  bool done = false;
  // Barrier bookkeeping: lanes that arrived at `barrier`, and whether the warp has arrived.
  int32_t barrier = -1;
  uint32_t arrived = 0;
  bool warpArrived = false;
  // Lanes waiting at bar.warp.sync or at a .sync collective (shfl, vote, match, redux) for the
  // rest of their membermask, one group per membermask value (and, for a collective, per
  // operation and qualifiers): the lanes that have arrived, those of the mask that passed it
  // without taking part (guard false), and, for a collective, where each arrival's operands
  // and results are (the operation runs once, over every part, when the group completes).
  struct CollectivePart {
    const DInst* inst = nullptr;
    Frame* frame = nullptr;
    uint32_t lanes = 0;
  };
  struct PendingSync {
    uint32_t mask = 0, arrived = 0, excused = 0;
    uint64_t id = 0;
    std::vector<CollectivePart> parts;  // empty for bar.warp.sync
  };
  std::vector<PendingSync> pendingSyncs;
  uint64_t nextSyncGroup = 1;
  uint32_t live() const { return valid & ~exited; }
};

}  // namespace ptxopt::emu
