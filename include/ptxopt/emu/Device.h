// A device that lives as long as a process (the CUDA runtime stand-in, issue #33): device
// memory that outlives launches, modules loaded once whose .global and .const variables keep
// their values from launch to launch, and launches whose parameters are the raw bytes of the
// kernel's parameter block. ptxrun's single launch (`Emulator::run`) runs on the same core.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxopt/emu/Emulator.h"
#include "ptxopt/emu/Texture.h"
#include "ptxopt/ir/Module.h"

namespace ptxopt::emu {

// What a launch may ask for (an sm_90 GPU's limits): grid dimensions, threads per CTA, and
// shared memory per CTA, static and dynamic together (the opt-in maximum).
inline constexpr uint32_t kMaxGridX = 0x7fffffffu;
inline constexpr uint32_t kMaxGridYZ = 65535;
inline constexpr uint32_t kMaxThreadsPerCta = 1024;
inline constexpr uint64_t kMaxSharedBytesPerCta = 227 * 1024;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// Where one kernel parameter lies in the parameter block.
struct ParamSlot {
  std::string name;
  uint64_t offset = 0, size = 0, align = 1;
};

struct DeviceLaunch {
  std::string kernel;           // the .entry's name
  Dim3 grid, block;
  uint32_t dynamicShared = 0;   // bytes of `extern .shared` memory
  std::vector<uint8_t> params;  // the parameter block, laid out as kernelParams() says
};

class Device {
 public:
  // `mapHostMemory` false: a device kept in step with another (--compare), whose host-mapped
  // allocations (and managed variables) it places alike with bytes of its own.
  explicit Device(bool mapHostMemory = true);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // ---- memory ---------------------------------------------------------------------------------
  // A new allocation of `size` bytes (zeroed), 256-byte aligned, at an address kernels can use
  // as a global (and generic) address; 0 when `size` is 0 or does not fit.
  uint64_t allocate(uint64_t size, std::string_view name);
  // An allocation the host program reaches at the same address as kernels (cudaMallocManaged,
  // cudaMallocHost: unified addressing): page-aligned, mapped at that address in this process.
  // 0 when no address of the window is free in the process (under a sanitizer, whose shadow
  // memory covers it).
  uint64_t allocateHostMapped(uint64_t size, std::string_view name);
  // A plain allocation at exactly `addr` (256-byte aligned; 0 when that is taken): a device kept
  // in step with another (--compare), whose allocation there may be host-mapped.
  uint64_t allocateAt(uint64_t addr, uint64_t size, std::string_view name);
  // Whether [addr, addr+n) lies in a host-mapped allocation.
  bool isHostMapped(uint64_t addr, uint64_t n) const;
  // The host-mapped allocations, as (address, size).
  std::vector<std::pair<uint64_t, uint64_t>> hostMappedAllocations() const;
  // Frees the allocation that starts at `addr`; false when no live allocation starts there.
  bool release(uint64_t addr);
  // Frees every allocation (module variables stay): cudaDeviceReset.
  void releaseAll();
  // Copies between host and device memory and within device memory. Each device range must lie
  // in one live allocation or one module variable (see symbol()); otherwise false, with `error`
  // saying which address is not device memory.
  bool write(uint64_t addr, const void* src, uint64_t n, std::string& error);
  bool read(uint64_t addr, void* dst, uint64_t n, std::string& error) const;
  bool fill(uint64_t addr, uint8_t value, uint64_t n, std::string& error);
  bool copy(uint64_t dst, uint64_t src, uint64_t n, std::string& error);
  // Bytes in live allocations (module variables not counted).
  uint64_t bytesInUse() const;
  // The first byte, in address order, where this device's memory (live allocations, module
  // variables and constant images) differs from `other`'s, as "'NAME' (N bytes at 0xADDR),
  // byte K: 0xAA here, 0xBB there"; an allocation that only one device has is a difference too.
  // Empty when they are the same.
  std::string firstDifference(const Device& other) const;

  // ---- texture objects (Texture.h) ----------------------------------------------------------
  // A handle (1, 2, ...; never reused) for `d`, whose texels must lie in one live allocation;
  // 0 with `error` when they do not or the description is unusable (checkTexture).
  uint64_t createTexture(const TextureDesc& d, std::string& error);
  // False when `handle` names no live texture.
  bool destroyTexture(uint64_t handle);
  // The texture of a live handle, or nullptr.
  const TextureDesc* texture(uint64_t handle) const;

  // ---- modules --------------------------------------------------------------------------------
  // Verifies and prepares `m` (which must outlive the device) and allocates its .global and
  // .const variables, with their initializers; a `.attribute(.managed)` variable (__managed__)
  // is host-mapped (see allocateHostMapped) where it can be. The module's id (0, 1, ...), or -1 with `error`.
  int load(const Module& m, std::string_view name, std::string& error);
  // A module variable (.global or .const) by name: its address (valid for read/write/fill/copy)
  // and size. False when the module declares no such variable.
  bool symbol(int module, std::string_view name, uint64_t& addr, uint64_t& size) const;
  // A kernel's parameters in order and the size of its parameter block; false when the module
  // has no .entry of that name.
  bool kernelParams(int module, std::string_view kernel, std::vector<ParamSlot>& slots, uint64_t& blockSize) const;

  // ---- launches -------------------------------------------------------------------------------
  // Runs one launch to completion over the device's memory and the module's variables: what it
  // writes stays. `RunResult::buffers` is empty; a fault or a launch that does not fit the
  // kernel (its launch bounds, a parameter block of the wrong size) sets `fault` or `error`.
  RunResult launch(int module, const DeviceLaunch& l, const RunOptions& options);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptxopt::emu
