// Running a launch: its preparation (the kernel, launch bounds, global memory, module variables,
// parameters), its CTAs on host threads (one when races are checked) and the results in CTA
// order; per CTA the warps in round-robin or random order, their reconvergence stacks and call
// frames, and the barrier-deadlock report; address resolution, memory access and the race
// records; Emulator::create. The instructions themselves run in Execute.cpp, Control.cpp and
// Kernels.cpp (Semantics.h), on the form Decode.cpp makes.
#include "Cta.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "Printf.h"
#include "Semantics.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Printer.h"

namespace ptxopt::emu {

void writeVariableInitializer(const Variable& v, uint8_t* out, uint64_t size);

void Metrics::add(const Metrics& o) {
  warpInstructions += o.warpInstructions;
  threadInstructions += o.threadInstructions;
  branches += o.branches;
  divergentBranches += o.divergentBranches;
  barriers += o.barriers;
  maxReconvergenceDepth = std::max(maxReconvergenceDepth, o.maxReconvergenceDepth);
  for (const auto& [line, m] : o.perLine) {
    LineMetrics& d = perLine[line];
    d.warpInstructions += m.warpInstructions;
    d.threadInstructions += m.threadInstructions;
    d.branches += m.branches;
    d.divergentBranches += m.divergentBranches;
  }
  for (const auto& [line, c] : o.branchOutcomes) branchOutcomes[line].add(c);
  for (const auto& [line, n] : o.uniSplits) uniSplits[line] += n;
}

// ---- global memory ------------------------------------------------------------------------

namespace {
constexpr uint64_t kGap = 256;  // between allocations: catches small overruns
constexpr uint64_t kPage = 4096;
}  // namespace

void GlobalMemory::FreeBytes::operator()(uint8_t* p) const {
  if (mappedLength) munmap(p, mappedLength);
  else std::free(p);
}

uint64_t GlobalMemory::place(uint64_t size, uint64_t align) {
  align = std::max<uint64_t>(align, 256);
  if (size > end_ - kGlobalBase || align > end_ - kGlobalBase) return 0;
  auto alignUp = [&](uint64_t v) { return (v + align - 1) / align * align; };
  uint64_t base = alignUp(next_);
  if (base <= end_ && end_ - base >= size) {
    next_ = base + size + kGap;
    return base;
  }
  // The window is used up: the first gap between live allocations that fits.
  uint64_t from = kGlobalBase;
  for (const Allocation& a : allocs_) {
    uint64_t cand = alignUp(from);
    if (cand < a.base && a.base - cand >= size + kGap) return cand;
    from = a.base + a.size + kGap;
  }
  uint64_t cand = alignUp(from);
  return cand > end_ || end_ - cand < size ? 0 : cand;
}

bool GlobalMemory::isFree(uint64_t base, uint64_t size) const {
  if (base < kGlobalBase || base > end_ || end_ - base < size) return false;
  auto it = std::lower_bound(allocs_.begin(), allocs_.end(), base, [](const Allocation& a, uint64_t v) { return a.base < v; });
  if (it != allocs_.end() && it->base < base + size + kGap) return false;
  return it == allocs_.begin() || std::prev(it)->base + std::prev(it)->size + kGap <= base;
}

uint64_t GlobalMemory::insert(uint64_t base, uint64_t size, std::string name, Kind kind,
                              std::unique_ptr<uint8_t[], FreeBytes> bytes) {
  Allocation a;
  a.base = base;
  a.size = size;
  a.name = std::move(name);
  a.kind = kind;
  a.bytes = std::move(bytes);
  auto at = std::upper_bound(allocs_.begin(), allocs_.end(), base, [](uint64_t v, const Allocation& x) { return v < x.base; });
  allocs_.insert(at, std::move(a));
  return base;
}

uint64_t GlobalMemory::allocate(uint64_t size, uint64_t align, std::string name, Kind kind) {
  uint64_t base = place(size, align);
  if (!base) return 0;
  uint8_t* bytes = static_cast<uint8_t*>(std::calloc(std::max<uint64_t>(size, 1), 1));
  if (!bytes) return 0;
  return insert(base, size, std::move(name), kind, std::unique_ptr<uint8_t[], FreeBytes>(bytes, FreeBytes()));
}

uint64_t GlobalMemory::allocateHostMapped(uint64_t size, std::string name, Kind kind) {
  uint64_t length = (std::max<uint64_t>(size, 1) + kPage - 1) / kPage * kPage;
  // A few tries: each address the process already uses is passed over. (The pages past `size`
  // overlap no later host-mapped allocation: those start on a fresh page.)
  for (int attempt = 0; attempt < 16; ++attempt) {
    uint64_t base = place(size, kPage);
    if (!base) return 0;
    if (!mapHost_) {  // the same placement, plain bytes
      uint8_t* bytes = static_cast<uint8_t*>(std::calloc(std::max<uint64_t>(size, 1), 1));
      return bytes ? insert(base, size, std::move(name), kind, std::unique_ptr<uint8_t[], FreeBytes>(bytes, FreeBytes())) : 0;
    }
    void* want = reinterpret_cast<void*>(base);
    void* got = mmap(want, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want)
      return insert(base, size, std::move(name), kind,
                    std::unique_ptr<uint8_t[], FreeBytes>(static_cast<uint8_t*>(got), FreeBytes{length}));
    if (got != MAP_FAILED) munmap(got, length);  // a kernel that took the address as a hint only
    next_ = std::max<uint64_t>(next_, base + length + (64ull << 20));
  }
  return 0;
}

uint64_t GlobalMemory::allocateAt(uint64_t base, uint64_t size, std::string name) {
  if (base % 256 || !isFree(base, size)) return 0;
  uint8_t* bytes = static_cast<uint8_t*>(std::calloc(std::max<uint64_t>(size, 1), 1));
  if (!bytes) return 0;
  next_ = std::max(next_, base + size + kGap);
  return insert(base, size, std::move(name), Kind::Buffer, std::unique_ptr<uint8_t[], FreeBytes>(bytes, FreeBytes()));
}

bool GlobalMemory::release(uint64_t base, Kind kind) {
  auto it = std::lower_bound(allocs_.begin(), allocs_.end(), base, [](const Allocation& a, uint64_t v) { return a.base < v; });
  if (it == allocs_.end() || it->base != base || it->kind != kind) return false;
  freed_.push_back(Freed{it->base, it->size, std::move(it->name)});
  if (freed_.size() > 4096) freed_.pop_front();
  allocs_.erase(it);
  return true;
}

const GlobalMemory::Allocation* GlobalMemory::holding(uint64_t addr) const {
  auto it = std::upper_bound(allocs_.begin(), allocs_.end(), addr, [](uint64_t v, const Allocation& a) { return v < a.base; });
  if (it == allocs_.begin()) return nullptr;
  --it;
  return addr - it->base < it->size ? &*it : nullptr;
}

uint64_t GlobalMemory::bytesIn(Kind kind) const {
  uint64_t n = 0;
  for (const Allocation& a : allocs_)
    if (a.kind == kind) n += a.size;
  return n;
}

std::string GlobalMemory::describe(uint64_t addr) const {
  char buf[256];
  if (!holding(addr)) {
    // Memory that was released (the latest release that held it).
    for (auto it = freed_.rbegin(); it != freed_.rend(); ++it)
      if (addr >= it->base && addr - it->base < std::max<uint64_t>(it->size, 1)) {
        std::snprintf(buf, sizeof buf, "0x%llx is inside '%s' (%llu bytes at 0x%llx), which was freed",
                      static_cast<unsigned long long>(addr), it->name.c_str(), static_cast<unsigned long long>(it->size),
                      static_cast<unsigned long long>(it->base));
        return buf;
      }
  }
  const Allocation* best = nullptr;
  for (const Allocation& a : allocs_)
    if (a.base <= addr) best = &a;
  if (!best) {
    std::snprintf(buf, sizeof buf, "0x%llx is below every global allocation", static_cast<unsigned long long>(addr));
  } else if (addr >= best->base + best->size) {
    std::snprintf(buf, sizeof buf, "0x%llx is %llu byte(s) past the end of '%s' (%llu bytes at 0x%llx)",
                  static_cast<unsigned long long>(addr), static_cast<unsigned long long>(addr - best->base - best->size),
                  best->name.c_str(), static_cast<unsigned long long>(best->size), static_cast<unsigned long long>(best->base));
  } else {
    std::snprintf(buf, sizeof buf, "0x%llx is inside '%s' but the access runs past its end", static_cast<unsigned long long>(addr),
                  best->name.c_str());
  }
  return buf;
}

// ---- launch preparation ---------------------------------------------------------------------

// The address an initializer item names: a .global variable's global address, a .const
// variable's const-space offset (its generic address with generic()), a function's code address.
static bool initializerAddress(const Program& P, const ModuleMemory& vars, const InitItem& it, uint64_t& addr, std::string& name) {
  name = std::string(P.module->str(it.id));
  bool found = false;
  for (size_t j = 0; j < P.globals.size(); ++j)
    if (P.globals[j].name == name) {
      addr = vars.globalVarAddr[j];
      found = true;
    }
  if (!found)
    for (const DConst& c : P.consts)
      if (c.name == name) {
        addr = c.offset + (it.kind == InitItem::Kind::Generic ? kConstWindow : 0);
        found = true;
      }
  auto fi = P.functionIndex.find(name);
  if (!found && fi != P.functionIndex.end()) {
    addr = kCodeWindow + 16 * fi->second;
    found = true;
  }
  if (!found) return false;
  addr += static_cast<uint64_t>(it.value);
  return true;
}

// Writes the addresses among `v`'s initializer items into its bytes (the numbers are there).
static bool writeInitializerAddresses(const Program& P, const ModuleMemory& vars, const Variable& v, const std::string& varName,
                                      uint8_t* bytes, uint64_t size, std::string& error) {
  if (!v.hasInit) return true;
  uint64_t elem = std::max<uint64_t>(1, typeBits(v.type) / 8), pos = 0;
  for (const InitItem& it : v.init) {
    if (it.kind == InitItem::Kind::Open || it.kind == InitItem::Kind::Close) continue;
    if (it.kind == InitItem::Kind::Symbol || it.kind == InitItem::Kind::Generic) {
      uint64_t addr = 0;
      std::string name;
      if (!initializerAddress(P, vars, it, addr, name)) {
        error = "variable '" + varName + "': its initializer names '" + name + "', which is not a global variable or function";
        return false;
      }
      if (pos + elem <= size) std::memcpy(bytes + pos, &addr, std::min<uint64_t>(elem, 8));
    }
    pos += elem;
  }
  return true;
}

bool placeModuleVariables(const Program& P, GlobalMemory& mem, bool constInGlobal, ModuleMemory& out, std::string& error) {
  for (const DGlobal& g : P.globals) {
    uint64_t addr = g.managed && constInGlobal ? mem.allocateHostMapped(g.size, g.name, GlobalMemory::Kind::Variable) : 0;
    if (!addr) addr = mem.allocate(g.size, g.align, g.name, GlobalMemory::Kind::Variable);
    if (!addr) {
      error = "variable '" + g.name + "': no host memory for its " + std::to_string(g.size) + " bytes";
      return false;
    }
    out.globalVarAddr.push_back(addr);
  }
  out.constSize = P.constImage.size();
  if (constInGlobal) {
    out.constAddr = mem.allocate(std::max<uint64_t>(out.constSize, 1), 256, std::string(P.fileName) + " .const",
                                 GlobalMemory::Kind::Variable);
    if (!out.constAddr) {
      error = "no host memory for the module's " + std::to_string(out.constSize) + " bytes of constants";
      return false;
    }
    out.constBytes = mem.find(out.constAddr, 1);
  } else {
    out.constOwned.assign(std::max<uint64_t>(out.constSize, 1), 0);
    out.constBytes = out.constOwned.data();
  }
  if (out.constSize) std::memcpy(out.constBytes, P.constImage.data(), out.constSize);
  for (size_t k = 0; k < P.globals.size(); ++k) {
    const DGlobal& g = P.globals[k];
    if (!g.var->hasInit) continue;
    uint8_t* bytes = mem.find(out.globalVarAddr[k], g.size);
    writeVariableInitializer(*g.var, bytes, g.size);
    if (!writeInitializerAddresses(P, out, *g.var, g.name, bytes, g.size, error)) return false;
  }
  for (const DConst& c : P.consts)
    if (!writeInitializerAddresses(P, out, *c.var, c.name, out.constBytes + c.offset, c.size, error)) return false;
  return true;
}

bool Launch::chooseKernel(const std::string& name, const std::string& where, std::string& error) {
  std::vector<const DFunction*> entries;
  for (const DFunction& f : P.functions)
    if (f.ir->isEntry) entries.push_back(&f);
  if (name.empty()) {
    if (entries.size() != 1) {
      error = where + ": kernel: the module has " + std::to_string(entries.size()) + " kernels; name one in the spec's \"kernel\" field";
      return false;
    }
    kernel = entries[0];
    return true;
  }
  for (const DFunction* f : entries)
    if (f->name == name) kernel = f;
  if (!kernel) {
    error = where + ": kernel: no .entry named '" + name + "' in the module";
    return false;
  }
  return true;
}

bool Launch::checkShape(const std::string& where, std::string& error) {
  const Function& fn = *kernel->ir;
  threadsPerCta = block[0] * block[1] * block[2];
  // The kernel's own launch bounds: a GPU refuses a launch that breaks them.
  LaunchBounds bounds = fn.launchBounds();
  auto refuse = [&](const char* directive, const std::array<uint64_t, 3>& d) {
    error = where + ": block: [" + std::to_string(block[0]) + ", " + std::to_string(block[1]) + ", " + std::to_string(block[2]) +
            "] breaks kernel '" + kernel->name + "''s " + directive + " " + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
            std::to_string(d[2]);
    return false;
  };
  if (bounds.reqntid && ((*bounds.reqntid)[0] != block[0] || (*bounds.reqntid)[1] != block[1] || (*bounds.reqntid)[2] != block[2]))
    return refuse(".reqntid", *bounds.reqntid);
  if (bounds.maxntid && uint64_t(threadsPerCta) > (*bounds.maxntid)[0] * (*bounds.maxntid)[1] * (*bounds.maxntid)[2])
    return refuse(".maxntid", *bounds.maxntid);
  warpsPerCta = (threadsPerCta + 31) / 32;
  totalCtas = uint64_t(grid[0]) * grid[1] * grid[2];
  return true;
}

bool Launch::prepare(const LaunchSpec& s, std::string& error) {
  spec = &s;
  grid = s.grid;
  block = s.block;
  dynamicSharedBytes = s.dynamicSharedBytes;
  if (!chooseKernel(s.kernel, s.path, error)) return false;
  const Function& fn = *kernel->ir;
  if (s.params.size() != fn.params.size()) {
    error = s.path + ": params: the spec lists " + std::to_string(s.params.size()) + " parameter(s), kernel '" + kernel->name +
            "' takes " + std::to_string(fn.params.size());
    return false;
  }
  if (!checkShape(s.path, error)) return false;

  // Module variables, in memory of the launch's own.
  ownGlobal = std::make_unique<GlobalMemory>();
  global = ownGlobal.get();
  vars = &ownVars;
  if (!placeModuleVariables(P, *global, false, ownVars, error)) return false;

  // Parameters.
  for (size_t k = 0; k < s.params.size(); ++k) {
    const ParamSpec& p = s.params[k];
    const Variable& v = fn.params[k];
    uint64_t size = v.sizeInBytes(), off = kernel->paramOffsets[k];
    if (kernelParams.size() < off + size) kernelParams.resize(off + size, 0);
    std::string field = s.path + ": params[" + std::to_string(k) + "] (" + p.name + ")";
    switch (p.kind) {
      case ParamSpec::Kind::Buffer: {
        if (size != 8) {
          error = field + ": a buffer needs a 64-bit pointer parameter, the kernel's is " + std::to_string(size) + " bytes";
          return false;
        }
        std::vector<uint8_t> init;
        std::string e;
        if (!initialBufferContents(p, init, e)) {
          error = s.path + ": " + e;
          return false;
        }
        uint64_t addr = global->allocate(init.size(), 256, p.name);
        if (!addr) {
          error = field + ": no host memory for " + std::to_string(init.size()) + " bytes";
          return false;
        }
        if (!init.empty()) std::memcpy(global->find(addr, init.size()), init.data(), init.size());
        bufferAddr.push_back(addr);
        std::memcpy(kernelParams.data() + off, &addr, 8);
        break;
      }
      case ParamSpec::Kind::Scalar: {
        if (elemBytes(p.type) != size) {
          error = field + ": a " + elemTypeName(p.type) + " value for a " + std::to_string(size) + "-byte parameter";
          return false;
        }
        std::string e;
        if (!encodeNumber(p.value, p.type, kernelParams.data() + off, e)) {
          error = field + ".value: " + e;
          return false;
        }
        bufferAddr.push_back(0);
        break;
      }
      case ParamSpec::Kind::Texture: {
        if (size != 8) {
          error = field + ": a texture needs a 64-bit parameter (cudaTextureObject_t), the kernel's is " + std::to_string(size) + " bytes";
          return false;
        }
        std::vector<uint8_t> init;
        std::string e;
        if (!initialBufferContents(p, init, e)) {
          error = s.path + ": " + e;
          return false;
        }
        TextureDesc d = p.texture;
        const uint64_t span = d.spanBytes();
        d.base = global->allocate(span, 256, p.name);
        if (!d.base) {
          error = field + ": no host memory for " + std::to_string(span) + " bytes";
          return false;
        }
        // Packed rows of the initializer to rows `pitch` apart.
        uint8_t* mem = global->find(d.base, span);
        const uint64_t rowBytes = uint64_t(d.width) * d.texelBytes(), rows = uint64_t(d.height) * d.depth;
        for (uint64_t r = 0; r < rows && rowBytes; ++r) std::memcpy(mem + r * d.rowPitch(), init.data() + r * rowBytes, rowBytes);
        const uint64_t handle = global->createTexture(d);
        std::memcpy(kernelParams.data() + off, &handle, 8);
        bufferAddr.push_back(d.base);
        break;
      }
      case ParamSpec::Kind::TensorMap:
        if (size != kTensorMapBytes) {
          error = field + ": a tensor map needs a 128-byte parameter (a __grid_constant__ CUtensorMap), the kernel's is " +
                  std::to_string(size) + " bytes";
          return false;
        }
        bufferAddr.push_back(0);  // written below, once every buffer has its address
        break;
      case ParamSpec::Kind::Bytes:
        if (p.bytes.size() != size) {
          error = field + ".bytes: " + std::to_string(p.bytes.size()) + " bytes for a " + std::to_string(size) + "-byte parameter";
          return false;
        }
        std::memcpy(kernelParams.data() + off, p.bytes.data(), size);
        bufferAddr.push_back(0);
        break;
    }
  }
  for (size_t k = 0; k < s.params.size(); ++k)
    if (s.params[k].kind == ParamSpec::Kind::TensorMap &&
        !writeTensorMap(s, k, kernelParams.data() + kernel->paramOffsets[k], error))
      return false;
  return true;
}

// The descriptor of spec parameter `k` (a "tensormap") over its buffer, into `out`.
bool Launch::writeTensorMap(const LaunchSpec& s, size_t k, uint8_t* out, std::string& error) {
  const TensorMapSpec& m = s.params[k].tensorMap;
  const std::string field = s.path + ": params[" + std::to_string(k) + "].tensormap";
  size_t b = 0;
  while (b < s.params.size() && !(s.params[b].kind == ParamSpec::Kind::Buffer && s.params[b].name == m.buffer)) ++b;
  if (b == s.params.size()) {
    error = field + ".buffer: no buffer parameter is named '" + m.buffer + "'";
    return false;
  }
  const ParamSpec& buf = s.params[b];
  TensorMapDesc d;
  d.base = bufferAddr[b];
  d.rank = m.rank;
  d.elemBytes = elemBytes(buf.type);
  d.dims = m.dims;
  d.box = m.box;
  d.strides = m.strides;
  // Packed rows when the spec gives no strides.
  if (std::all_of(m.strides.begin(), m.strides.end(), [](uint64_t v) { return v == 0; }))
    for (uint32_t j = 1; j < m.rank; ++j) d.strides[j - 1] = (j == 1 ? d.elemBytes : d.strides[j - 2]) * m.dims[j - 1];
  if (std::string why = checkTensorMap(d); !why.empty()) {
    error = field + ": " + why;
    return false;
  }
  uint64_t last = (d.dims[0] - 1) * d.elemBytes + d.elemBytes;  // one past the map's last byte
  for (uint32_t j = 1; j < d.rank; ++j) last += (d.dims[j] - 1) * d.strides[j - 1];
  if (last > buf.count * d.elemBytes) {
    error = field + ": the map spans " + std::to_string(last) + " bytes of '" + m.buffer + "', which has " +
            std::to_string(buf.count * d.elemBytes);
    return false;
  }
  encodeTensorMap(d, out);
  return true;
}

uint64_t kernelParamBlockSize(const DFunction& k) {
  uint64_t end = 0;
  for (size_t i = 0; i < k.paramOffsets.size(); ++i) end = std::max(end, k.paramOffsets[i] + k.paramSizes[i]);
  return end;
}

bool Launch::prepare(GlobalMemory& mem, const ModuleMemory& v, const DeviceLaunch& l, std::string& error) {
  const std::string where = "launch of '" + l.kernel + "'";
  if (l.kernel.empty()) {
    error = "launch: no kernel named";
    return false;
  }
  if (!chooseKernel(l.kernel, where, error)) return false;
  grid = {l.grid.x, l.grid.y, l.grid.z};
  block = {l.block.x, l.block.y, l.block.z};
  dynamicSharedBytes = l.dynamicShared;
  auto dims = [](const std::array<uint32_t, 3>& d) {
    return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
  };
  if (!grid[0] || !grid[1] || !grid[2]) {
    error = where + ": grid: " + dims(grid) + " has a zero dimension";
    return false;
  }
  if (!block[0] || !block[1] || !block[2]) {
    error = where + ": block: " + dims(block) + " has a zero dimension";
    return false;
  }
  if (grid[0] > kMaxGridX || grid[1] > kMaxGridYZ || grid[2] > kMaxGridYZ) {
    error = where + ": grid: " + dims(grid) + " is larger than a GPU's [" + std::to_string(kMaxGridX) + ", " +
            std::to_string(kMaxGridYZ) + ", " + std::to_string(kMaxGridYZ) + "]";
    return false;
  }
  if (uint64_t(grid[0]) * grid[1] * grid[2] > UINT32_MAX) {
    error = where + ": grid: " + dims(grid) + " has more CTAs than the emulator runs in one launch (2^32 - 1)";
    return false;
  }
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (block[0] > 1024 || block[1] > 1024 || block[2] > 64 || threads > kMaxThreadsPerCta) {
    error = where + ": block: " + dims(block) + " has " + std::to_string(threads) +
            " threads; a CTA has at most 1024 ([1024, 1024, 64] in each dimension)";
    return false;
  }
  if (P.dynamicSharedOffset + uint64_t(dynamicSharedBytes) > kMaxSharedBytesPerCta) {
    error = where + ": " + std::to_string(dynamicSharedBytes) + " bytes of dynamic shared memory with the kernel's " +
            std::to_string(P.dynamicSharedOffset) + " of static shared memory exceed the " + std::to_string(kMaxSharedBytesPerCta) +
            " bytes a CTA may have";
    return false;
  }
  uint64_t blockSize = kernelParamBlockSize(*kernel);
  if (l.params.size() != blockSize) {
    error = where + ": params: " + std::to_string(l.params.size()) + " bytes for kernel '" + kernel->name + "''s " +
            std::to_string(blockSize) + "-byte parameter block";
    return false;
  }
  if (!checkShape(where, error)) return false;
  global = &mem;
  vars = &v;
  kernelParams = l.params;
  return true;
}

void Launch::reportRace(const std::string& space, const Access& a, const Access& b, const std::string& kindA,
                        const std::string& kindB, const std::string& where, bool sameValue, const char* why) {
  uint32_t la = std::min(a.line, b.line), lb = std::max(a.line, b.line);
  auto key = std::make_tuple(space, la, lb, a.line <= b.line ? kindA : kindB, a.line <= b.line ? kindB : kindA, sameValue);
  auto it = races.find(key);
  if (it != races.end()) {
    ++it->second.occurrences;
    return;
  }
  RaceReport r;
  r.space = space;
  r.lineA = a.line;
  r.lineB = b.line;
  r.kindA = kindA;
  r.kindB = kindB;
  r.occurrences = 1;
  r.sameValue = sameValue;
  r.description = std::string(sameValue ? "same-value " : "") + "race on " + space + " memory " + where + ": " + kindA + " at " + P.fileName + ":" + std::to_string(a.line) +
                  " by thread " + std::to_string(a.thread) + " of CTA " + std::to_string(a.cta) + ", " + kindB + " at " +
                  P.fileName + ":" + std::to_string(b.line) + " by thread " + std::to_string(b.thread) + " of CTA " +
                  std::to_string(b.cta) + ", " + (why ? why : "with no barrier between them") +
                  (sameValue ? " (both store the same bytes: benign on a GPU, whichever lands last)" : "");
  races.emplace(key, std::move(r));
}

void Launch::reportInFlightRace(const Access& a, const std::string& kind, uint32_t copyLine, uint32_t copyThread,
                                const std::string& where, InFlightKind copy) {
  uint32_t la = std::min(a.line, copyLine), lb = std::max(a.line, copyLine);
  const bool bulk = copy != InFlightKind::CopyWrite;
  const std::string copyKind = bulk ? "cp.async.bulk in flight" : "cp.async in flight";
  const std::string space = copy == InFlightKind::BulkSourceRead ? "global" : "shared";
  auto key = std::make_tuple(space, la, lb, a.line <= copyLine ? kind : copyKind,
                             a.line <= copyLine ? copyKind : kind, false);
  auto it = races.find(key);
  if (it != races.end()) {
    ++it->second.occurrences;
    return;
  }
  RaceReport r;
  r.space = space;
  r.lineA = copyLine;
  r.lineB = a.line;
  r.kindA = copyKind;
  r.kindB = kind;
  r.occurrences = 1;
  r.description =
      "race on " + space + " memory " + where + ": " + kind + " at " + P.fileName + ":" + std::to_string(a.line) +
      " by thread " + std::to_string(a.thread) + " of CTA " + std::to_string(a.cta) + " while a " +
      (bulk ? "cp.async.bulk" : "cp.async") + " at " + P.fileName + ":" + std::to_string(copyLine) + " by thread " +
      std::to_string(copyThread) +
      (copy == InFlightKind::CopyWrite
           ? " may still write it (the copy lands when a cp.async.wait_group or wait_all of its thread completes its group)"
       : copy == InFlightKind::BulkWrite
           ? " may still write it (the copy lands when the phase of its mbarrier completes)"
       : copy == InFlightKind::BulkSourceRead
           ? " may still read it (a copy into shared memory reads its global source until the phase of its mbarrier "
             "completes)"
           : " may still read it (a bulk store reads its source until a cp.async.bulk.wait_group{.read} of its thread "
             "completes its group)");
  races.emplace(key, std::move(r));
}

void Launch::runAll(RunResult& result) {
  // What each CTA leaves behind; its runner (shared memory, warps, frames) is freed at once.
  struct CtaResult {
    Metrics metrics;
    std::string output, fault;
    FaultKind faultKind = FaultKind::None;
  };
  std::vector<CtaResult> done(totalCtas);
  unsigned jobs = opts.checkRaces ? 1 : std::max(1u, std::min<unsigned>(opts.jobs, static_cast<unsigned>(std::min<uint64_t>(totalCtas, 256))));
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    for (uint64_t c = next++; c < totalCtas && !stop; c = next++) {
      CtaRunner runner(*this, static_cast<uint32_t>(c));
      runner.run();
      if (!runner.fault.empty()) stop = true;
      done[c] = {std::move(runner.metrics), std::move(runner.output), std::move(runner.fault), runner.faultKind};
    }
  };
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
  }
  // Results in CTA order; the first fault (in CTA order) is the one reported.
  for (auto& r : done) {
    result.metrics.add(r.metrics);
    result.stdoutText += r.output;
    if (!r.fault.empty() && result.fault.empty()) {
      result.fault = r.fault;
      result.faultKind = r.faultKind;
    }
  }
  for (auto& [key, race] : races) result.races.push_back(race);
  for (size_t k = 0; spec && k < spec->params.size(); ++k) {
    const ParamSpec& p = spec->params[k];
    // Buffers, and surfaces (packed texels) which kernels write.
    if (p.kind != ParamSpec::Kind::Buffer && !(p.kind == ParamSpec::Kind::Texture && p.texture.surface)) continue;
    BufferResult b;
    b.name = p.name;
    b.type = p.type;
    uint64_t size = p.count * elemBytes(p.type);
    b.bytes.assign(size, 0);
    if (size) std::memcpy(b.bytes.data(), global->find(bufferAddr[k], size), size);
    result.buffers.push_back(std::move(b));
  }
}

// ---- CTAs and warps -------------------------------------------------------------------------

CtaRunner::CtaRunner(Launch& l, uint32_t linear) : L_(l), linear_(linear) {
  if (l.opts.schedule == RunOptions::Schedule::Random) rng_.emplace(l.opts.seed * 0x9E3779B97F4A7C15ull + linear);
  const auto& g = l.grid;
  ctaid_[0] = linear % g[0];
  ctaid_[1] = (linear / g[0]) % g[1];
  ctaid_[2] = static_cast<uint32_t>(linear / (uint64_t(g[0]) * g[1]));
  fastPaths_ = l.opts.fastPaths;
}

std::string CtaRunner::threadName(const Warp& w, int lane) const {
  return "(" + std::to_string(w.tid[0][lane]) + "," + std::to_string(w.tid[1][lane]) + "," + std::to_string(w.tid[2][lane]) + ")";
}

std::string CtaRunner::describeInstruction(const DInst& I) const {
  if (!I.ir) return "(end of function)";
  const Function& f = *I.ir->parent()->parent();
  return printInstruction(f, *I.ir);
}

void CtaRunner::faultAt(const Warp& w, int lane, const DInst& I, const std::string& what, FaultKind kind) {
  std::string msg = L_.P.fileName + ":" + std::to_string(I.line) + ": " + what + "\n  in kernel '" + L_.kernel->name + "', CTA (" +
                    std::to_string(ctaid_[0]) + "," + std::to_string(ctaid_[1]) + "," + std::to_string(ctaid_[2]) + ")";
  if (lane >= 0) msg += ", thread " + threadName(w, lane) + " (warp " + std::to_string(w.index) + ", lane " + std::to_string(lane) + ")";
  msg += "\n  instruction: " + describeInstruction(I);
  throw KernelFault{msg, kind};
}

Frame* CtaRunner::newFrame(Warp& w, const DFunction& fn, Frame* caller, const DCall* call) {
  auto f = std::make_unique<Frame>();
  f->fn = &fn;
  f->caller = caller;
  f->call = call;
  f->regs.assign(static_cast<size_t>(fn.numSlots) * 32, 0);
  for (size_t k = 0; k < fn.constValues.size(); ++k) {
    uint64_t* s = f->slot(fn.numRegs + static_cast<uint32_t>(k));
    for (int lane = 0; lane < 32; ++lane) s[lane] = fn.constValues[k];
  }
  for (const auto& sr : fn.specials) {
    uint64_t* s = f->slot(sr.slot);
    auto comp = [&](const uint32_t* xyz) { return sr.comp == Component::Y ? xyz[1] : sr.comp == Component::Z ? xyz[2] : xyz[0]; };
    for (int lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      uint32_t tidv[3] = {w.tid[0][lane], w.tid[1][lane], w.tid[2][lane]};
      switch (sr.reg) {
        case SpecialReg::Tid: v = comp(tidv); break;
        case SpecialReg::Ntid: v = comp(L_.block.data()); break;
        case SpecialReg::Ctaid: v = comp(ctaid_); break;
        case SpecialReg::Nctaid: v = comp(L_.grid.data()); break;
        case SpecialReg::Laneid: v = static_cast<uint64_t>(lane); break;
        case SpecialReg::Warpid: v = w.index; break;
        case SpecialReg::Nwarpid: v = L_.warpsPerCta; break;
        case SpecialReg::LanemaskEq: v = uint64_t(1) << lane; break;
        case SpecialReg::LanemaskLt: v = (uint64_t(1) << lane) - 1; break;
        case SpecialReg::LanemaskLe: v = (uint64_t(2) << lane) - 1; break;
        case SpecialReg::LanemaskGt: v = ~((uint64_t(2) << lane) - 1) & 0xFFFFFFFFu; break;
        case SpecialReg::LanemaskGe: v = ~((uint64_t(1) << lane) - 1) & 0xFFFFFFFFu; break;
        case SpecialReg::DynamicSmemSize: v = L_.dynamicSharedBytes; break;
        case SpecialReg::TotalSmemSize:
        case SpecialReg::AggrSmemSize: v = L_.P.dynamicSharedOffset + L_.dynamicSharedBytes; break;
        case SpecialReg::Nsmid: v = 1; break;
        case SpecialReg::Clusterid: v = comp(ctaid_); break;
        case SpecialReg::Nclusterid: v = comp(L_.grid.data()); break;
        case SpecialReg::ClusterNctaid: v = 1; break;
        case SpecialReg::ClusterNctarank: v = 1; break;
        default: v = 0; break;  // %smid, %gridid, %envreg*, %pm*, %cluster_ctaid, ... are 0
      }
      s[lane] = v;
    }
  }
  f->params.assign(fn.paramBytes * 32, 0);
  f->localBase = (w.localTop + 15) / 16 * 16;
  f->localEnd = f->localBase + fn.localBytes;
  w.localTop = f->localEnd;
  if (w.frames.size() > 4096) {
    throw KernelFault{L_.P.fileName + ": call stack deeper than 4096 frames in kernel '" + L_.kernel->name + "'"};
  }
  w.frames.push_back(std::move(f));
  return w.frames.back().get();
}

void CtaRunner::push(Warp& w, const StackEntry& e) {
  w.stack.push_back(e);
  ++e.frame->refs;
  metrics.maxReconvergenceDepth = std::max(metrics.maxReconvergenceDepth, static_cast<uint32_t>(w.stack.size()));
}

void CtaRunner::releaseFrame(Warp& w, Frame* f) {
  if (f->localEnd == w.localTop) w.localTop = f->localBase;
  for (size_t k = 0; k < w.frames.size(); ++k)
    if (w.frames[k].get() == f) {
      w.frames.erase(w.frames.begin() + static_cast<long>(k));
      return;
    }
}

void CtaRunner::popTop(Warp& w) {
  Frame* f = w.stack.back().frame;
  w.stack.pop_back();
  if (--f->refs == 0) releaseFrame(w, f);
}

void CtaRunner::diverge(Warp& w, const LaneGroups& paths, uint32_t rpc) {
  StackEntry cur = w.stack.back();
  w.stack.pop_back();
  Frame* f = cur.frame;
  --f->refs;  // the entries below take over
  if (rpc != cur.rpc) push(w, StackEntry{f, rpc, cur.rpc, cur.mask, false, -1});
  // The first path runs first: push it last.
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) push(w, StackEntry{f, it->first, rpc, it->second, false, -1});
  if (f->refs == 0) releaseFrame(w, f);
}

void CtaRunner::removeLanes(Warp& w, uint32_t lanes, const Frame* onlyFrame) {
  for (StackEntry& e : w.stack)
    if (!onlyFrame || e.frame == onlyFrame) e.mask &= ~lanes;
}

// The top entry waits at a barrier: run another entry of the warp that may. An entry may run
// when it is not waiting itself and none of its lanes is also in an entry above it: lanes above
// are on their way to it (a reconvergence point) or inside a call it made.
bool CtaRunner::rotate(Warp& w) {
  uint32_t above = 0;
  for (size_t k = w.stack.size(); k-- > 0;) {
    const StackEntry& e = w.stack[k];
    if (!e.parked && e.mask && !(e.mask & above)) {
      StackEntry moved = e;
      w.stack.erase(w.stack.begin() + static_cast<long>(k));
      w.stack.push_back(moved);
      return true;
    }
    above |= e.mask;
  }
  return false;
}

void CtaRunner::run() {
  const Launch& L = L_;
  warps_.resize(L.warpsPerCta);
  shared_.assign(L.P.dynamicSharedOffset + L.dynamicSharedBytes, 0);
  local_.assign(L.threadsPerCta, {});
  const auto& b = L.block;
  for (uint32_t wi = 0; wi < L.warpsPerCta; ++wi) {
    Warp& w = warps_[wi];
    w.index = wi;
    for (int lane = 0; lane < 32; ++lane) {
      uint32_t t = wi * 32 + static_cast<uint32_t>(lane);
      if (t < L.threadsPerCta) w.valid |= 1u << lane;
      w.tid[0][lane] = t % b[0];
      w.tid[1][lane] = (t / b[0]) % b[1];
      w.tid[2][lane] = t / (b[0] * b[1]);
    }
  }
  try {
    for (Warp& w : warps_) {
      Frame* kf = newFrame(w, *L.kernel, nullptr, nullptr);
      push(w, StackEntry{kf, 0, kNoPc, w.valid, false, -1});
    }
    // Round robin (or random order and slices) over the warps until all are done.
    const bool random = L.opts.schedule == RunOptions::Schedule::Random;
    for (;;) {
      if (L_.stop) return;
      bool progress = false, allDone = true;
      std::vector<uint32_t> order(warps_.size());
      for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
      if (random) std::shuffle(order.begin(), order.end(), *rng_);
      for (uint32_t k : order) {
        Warp& w = warps_[k];
        if (w.done) continue;
        uint64_t quantum = random ? 1 + (*rng_)() % 32 : 256;
        Step s = step(w, quantum);
        if (s != Step::Done) allDone = false;
        if (s == Step::Progress) progress = true;
        if (s == Step::Done) progress = true;
      }
      if (allDone) {
        // Bulk stores to global memory that no wait_group landed land when the CTA ends.
        for (uint32_t t = 0; t < bulk_.size(); ++t) landBulkStores(t, UINT64_MAX);
        break;
      }
      if (!progress) {
        // Every live warp waits at a barrier that cannot complete.
        std::string msg = L.P.fileName + ":" + std::to_string(0) + ": barrier deadlock in kernel '" + L.kernel->name + "', CTA (" +
                          std::to_string(ctaid_[0]) + "," + std::to_string(ctaid_[1]) + "," + std::to_string(ctaid_[2]) + ")";
        uint32_t line = 0;
        for (const Warp& w : warps_) {
          if (w.done) {
            msg += "\n  warp " + std::to_string(w.index) + " has finished";
            continue;
          }
          uint32_t waiting = 0;
          int bar = -1;
          for (const StackEntry& e : w.stack) {
            if (e.parked && e.barrier >= 0) {
              waiting |= e.mask;
              bar = e.barrier;
            }
            if (e.parked && e.barrier == kMbarrierPark) {
              const uint32_t at = e.frame->fn->code[e.pc].line;
              line = line ? line : at;
              msg += "\n  warp " + std::to_string(w.index) + " lanes " + laneList(e.mask) + " wait at mbarrier.try_wait (line " +
                     std::to_string(at) + ") for a phase of the mbarrier at shared " + raceWhere(e.syncGroup).substr(3) +
                     " that never completes (" + describeMbarrier(static_cast<uint32_t>(e.syncGroup)) + ")";
            }
          }
          if (bar >= 0) {
            line = barriers_[bar].line;
            msg += "\n  warp " + std::to_string(w.index) + " lanes " + laneList(waiting) + " wait at barrier " + std::to_string(bar) +
                   " (line " + std::to_string(barriers_[bar].line) + ")";
            uint32_t others = w.live() & ~waiting;
            if (others) msg += "; lanes " + laneList(others) + " of the same warp never arrive";
          }
        }
        if (line) msg.replace(msg.find(":0:"), 3, ":" + std::to_string(line) + ":");
        throw KernelFault{msg};
      }
    }
  } catch (const KernelFault& f) {
    fault = f.message;
    faultKind = f.kind;
  }
}

CtaRunner::Step CtaRunner::step(Warp& w, uint64_t quantum) {
  bool progressed = false;
  while (quantum--) {
    if (w.stack.empty()) {
      w.done = true;
      return Step::Done;
    }
    StackEntry& e = w.stack.back();
    e.mask &= ~w.exited;
    if (e.mask == 0) {
      popTop(w);
      continue;
    }
    if (e.parked) {
      if (rotate(w)) continue;
      if (!w.pendingSyncs.empty()) {  // the lanes a bar.warp.sync waits for cannot come: go on without them
        releaseWarpSyncs(w, true);
        continue;
      }
      return progressed ? Step::Progress : Step::Blocked;
    }
    if (e.pc == e.rpc) {
      popTop(w);
      continue;
    }
    const DFunction& fn = *e.frame->fn;
    if (e.pc >= fn.code.size()) {
      DInst dummy;
      dummy.line = fn.code.empty() ? 0 : fn.code.back().line;
      faultAt(w, std::countr_zero(e.mask), dummy, "control reached no instruction (pc " + std::to_string(e.pc) + ")");
    }
    execute(w, fn.code[e.pc]);
    progressed = true;
    if (++executed_ % 4096 == 0) {
      uint64_t total = L_.instructions.fetch_add(4096) + 4096;
      if (total > L_.opts.maxInstructions)
        faultAt(w, -1, fn.code[std::min<size_t>(w.stack.empty() ? 0 : w.stack.back().pc, fn.code.size() - 1)],
                "runaway: more than " + std::to_string(L_.opts.maxInstructions) + " warp instructions (--max-instructions)");
    }
  }
  return Step::Progress;
}

// ---- memory ---------------------------------------------------------------------------------

uint64_t CtaRunner::symbolAddress(Warp& w, const SymRef& s, int64_t offset, StateSpace& space) {
  uint64_t off = static_cast<uint64_t>(offset) + s.offset;
  switch (s.kind) {
    case SymRef::Kind::GlobalVar: space = StateSpace::Global; return L_.vars->globalVarAddr[s.index] + static_cast<uint64_t>(offset);
    case SymRef::Kind::ConstVar: space = StateSpace::Const; return off;
    case SymRef::Kind::SharedVar:
      space = StateSpace::Shared;
      return s.index == 1 ? L_.P.dynamicSharedOffset + static_cast<uint64_t>(offset) : off;
    case SymRef::Kind::LocalVar: space = StateSpace::Local; return w.stack.back().frame->localBase + off;
    case SymRef::Kind::KernelParam: space = StateSpace::Param; return off;
    case SymRef::Kind::Function: space = StateSpace::Generic; return kCodeWindow + 16 * s.index + static_cast<uint64_t>(offset);
    default: space = StateSpace::Generic; return 0;
  }
}

bool CtaRunner::ordered(const Warp& w, const Access& o, const Access& a) const {
  if (!o.valid || (o.thread == a.thread && o.cta == a.cta && !o.viaMbarrier)) return true;
  if (o.cta != a.cta) return false;  // different CTAs: nothing orders them but atomics
  if (o.epoch != a.epoch) return true;
  // The same warp: a synchronization of both lanes after the earlier access orders them.
  if (!o.viaMbarrier && o.warp == a.warp && !w.pairSync.empty() &&
      w.pairSync[(o.thread % 32) * 32 + a.thread % 32] > o.warpEpoch)
    return true;
  // An mbarrier: a thread that saw a phase complete is ordered after what the phase's arrivals
  // (and the copies it landed) did before it.
  if (order_ && a.thread < order_->proxy()) {
    const uint32_t slot = o.viaMbarrier ? order_->proxy() : o.thread;
    if (order_->acquired[static_cast<size_t>(a.thread) * order_->slots + slot] > o.mbarClock) return true;
  }
  return false;
}

std::string accessKind(const Access& x, bool isWrite) {
  if (x.atomic) return "atomic";
  if (x.bulk) return "cp.async.bulk write";
  if (x.async) return "cp.async write";
  return std::string(x.strong ? "strong " : "") + (isWrite ? "write" : "read");
}

std::string raceWhere(uint64_t byte) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "at 0x%llx", static_cast<unsigned long long>(byte));
  return buf;
}

void CtaRunner::checkInFlight(const std::unordered_map<uint64_t, InFlight>& inFlight, const Access& a, const std::string& kind,
                              uint64_t addr, uint64_t size, bool write) {
  for (uint64_t k = 0; k < size; ++k) {
    auto it = inFlight.find(addr + k);
    if (it == inFlight.end()) continue;
    const bool reading = it->second.kind == InFlightKind::BulkRead || it->second.kind == InFlightKind::BulkSourceRead;
    if (reading && !write) continue;
    L_.reportInFlightRace(a, kind, it->second.line, it->second.thread, raceWhere(addr + k), it->second.kind);
    return;  // once per access
  }
}

Access CtaRunner::accessBy(const Warp& w, const DInst& I, int lane) const {
  Access a;
  a.thread = w.index * 32 + static_cast<uint32_t>(lane);
  a.cta = linear_;
  a.line = I.line;
  a.epoch = barrierEpoch_;
  a.warpEpoch = w.syncEpoch;
  a.warp = static_cast<uint16_t>(w.index);
  if (order_) a.mbarClock = order_->clock[a.thread];
  return a;
}

void CtaRunner::recordAccess(Warp& w, const DInst& I, StateSpace space, uint64_t addr, uint64_t size, int lane, bool write,
                             bool atomic) {
  bool shared = isSharedSpace(space);
  if (!shared && space != StateSpace::Global) return;
  Access a = accessBy(w, I, lane);
  a.atomic = atomic;
  a.strong = atomic || I.strong;
  a.valid = true;
  auto ordered = [&](const Access& o) { return this->ordered(w, o, a); };
  auto where = [](uint64_t byte) { return raceWhere(byte); };
  std::unordered_map<uint64_t, Shadow>& shadow = shared ? sharedShadow_ : L_.globalShadow;
  const std::string spaceName = shared ? "shared" : "global";
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  // Shared bytes a cp.async may still write: any access races with the copy.
  if (shared && !inFlight_.empty()) checkInFlight(inFlight_, a, accessKind(a, write), addr, size, write);
  // Global bytes a bulk copy into shared memory may still read: a write races with the copy.
  if (!shared && write && !globalInFlight_.empty()) checkInFlight(globalInFlight_, a, accessKind(a, write), addr, size, write);
  // A write that races with earlier writes is a same-value race when it stores, at every byte
  // where it races, the byte the earlier write stored (the access as a whole, not byte by byte).
  bool same = write && storeBytes_;
  for (uint64_t k = 0; k < size && same; ++k) {
    auto it = shadow.find(addr + k);
    if (it != shadow.end() && !ordered(it->second.write) && !(it->second.write.strong && a.strong))
      same = it->second.writtenKnown && it->second.written == storeBytes_[k];
  }
  for (uint64_t k = 0; k < size; ++k) {
    Shadow& sh = shadow[addr + k];
    if (!ordered(sh.write) && !(sh.write.strong && a.strong)) {
      L_.reportRace(spaceName, sh.write, a, accessKind(sh.write, true), accessKind(a, write), where(addr + k), same);
    } else if (write && !ordered(sh.read) && !(sh.read.strong && a.strong)) {
      L_.reportRace(spaceName, sh.read, a, accessKind(sh.read, false), accessKind(a, write), where(addr + k));
    }
    if (write) {
      sh.write = a;
      sh.writtenKnown = storeBytes_ != nullptr;
      sh.written = storeBytes_ ? storeBytes_[k] : 0;
    } else {
      sh.read = a;
    }
  }
}

void CtaRunner::checkIncoherentRead(Warp& w, const DInst& I, const char* kind, uint64_t addr, uint64_t size, int lane,
                                    bool orderedOnly) {
  Access a = accessBy(w, I, lane);
  a.valid = true;
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  for (uint64_t k = 0; k < size; ++k) {
    auto it = L_.globalShadow.find(addr + k);
    if (it == L_.globalShadow.end() || !it->second.write.valid || (orderedOnly && !ordered(w, it->second.write, a)))
      continue;
    L_.reportRace("global", it->second.write, a, accessKind(it->second.write, true), kind, raceWhere(addr + k), false,
                  "which the texture cache does not see (texture and surface reads return undefined data for bytes "
                  "written earlier in the same launch)");
    return;
  }
}

uint8_t* CtaRunner::memory(Warp& w, const DInst& I, StateSpace space, uint64_t addr, uint64_t size, int lane, bool write,
                           bool atomic, const SymRef* sym, StateSpace* resolved) {
  // Parameters named by symbol.
  if (sym && (sym->kind == SymRef::Kind::FrameParam || sym->kind == SymRef::Kind::CalleeParam ||
              sym->kind == SymRef::Kind::CalleeRetval || sym->kind == SymRef::Kind::KernelParam)) {
    Frame* f = w.stack.back().frame;
    uint64_t off = static_cast<uint64_t>(I.addrOffset) + sym->offset;
    switch (sym->kind) {
      case SymRef::Kind::KernelParam:
        if (write) faultAt(w, lane, I, "a kernel parameter is read-only");
        if (off + size > L_.kernelParams.size()) faultAt(w, lane, I, "read past the end of the kernel parameters");
        return L_.kernelParams.data() + off;
      case SymRef::Kind::FrameParam:
        if (off + size > f->fn->paramBytes) faultAt(w, lane, I, "access past the end of a .param variable");
        return f->params.data() + static_cast<size_t>(lane) * f->fn->paramBytes + off;
      case SymRef::Kind::CalleeParam:
      case SymRef::Kind::CalleeRetval: {
        if (!f->caller || !f->call) faultAt(w, lane, I, "a function parameter outside a call");
        const auto& offs = sym->kind == SymRef::Kind::CalleeParam ? f->call->argOffsets : f->call->retOffsets;
        const auto& sizes = sym->kind == SymRef::Kind::CalleeParam ? f->fn->paramSizes : f->fn->retSizes;
        if (sym->index >= offs.size()) faultAt(w, lane, I, "the call passes fewer parameters than the function declares");
        if (off + size > sizes[sym->index]) faultAt(w, lane, I, "access past the end of a parameter");
        Frame* c = f->caller;
        return c->params.data() + static_cast<size_t>(lane) * c->fn->paramBytes + offs[sym->index] + off;
      }
      default: break;
    }
  }
  // Generic addresses: find the window.
  if (space == StateSpace::Generic) {
    space = windowOf(addr);
    addr -= windowBase(space);
  }
  if (resolved) *resolved = space;
  if (size > 1 && addr % size != 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "misaligned %llu-byte %s at %s address 0x%llx", static_cast<unsigned long long>(size),
                  write ? "store" : "load", std::string(spaceName(space)).substr(1).c_str(), static_cast<unsigned long long>(addr));
    faultAt(w, lane, I, buf, FaultKind::Address);
  }
  if (L_.opts.checkRaces) recordAccess(w, I, space, addr, size, lane, write, atomic);
  auto oob = [&](const std::string& detail) {
    faultAt(w, lane, I, std::string("out-of-bounds ") + (write ? "store" : "load") + " of " + std::to_string(size) + " byte(s): " + detail,
            FaultKind::Address);
  };
  char buf[128];
  switch (space) {
    case StateSpace::Global: {
      uint8_t* p = L_.global->find(addr, size);
      if (!p) oob("global address " + L_.global->describe(addr));
      return p;
    }
    case StateSpace::Shared:
    case StateSpace::SharedCta:
    case StateSpace::SharedCluster:
      if (addr + size > shared_.size() || addr + size < addr) {
        std::snprintf(buf, sizeof buf, "shared offset 0x%llx, the CTA has %llu bytes of shared memory",
                      static_cast<unsigned long long>(addr), static_cast<unsigned long long>(shared_.size()));
        oob(buf);
      }
      if (write && mbarParked_) wakeMbarrierWaiters();  // the bytes of an mbarrier someone waits on may change
      return shared_.data() + addr;
    case StateSpace::Local: {
      std::vector<uint8_t>& mem = local_[w.index * 32 + static_cast<uint32_t>(lane)];
      if (addr + size > w.localTop || addr + size < addr) {
        std::snprintf(buf, sizeof buf, "local offset 0x%llx, the thread's frames use %llu bytes", static_cast<unsigned long long>(addr),
                      static_cast<unsigned long long>(w.localTop));
        oob(buf);
      }
      if (mem.size() < w.localTop) mem.resize(std::max<uint64_t>(w.localTop, mem.size() * 2), 0);
      return mem.data() + addr;
    }
    case StateSpace::Const:
      if (write) faultAt(w, lane, I, "a store to constant memory");
      if (addr + size > L_.vars->constSize || addr + size < addr) {
        std::snprintf(buf, sizeof buf, "const offset 0x%llx, the module has %llu bytes of constants", static_cast<unsigned long long>(addr),
                      static_cast<unsigned long long>(L_.vars->constSize));
        oob(buf);
      }
      return L_.vars->constBytes + addr;
    case StateSpace::Param:
    case StateSpace::ParamEntry:
      if (write) faultAt(w, lane, I, "a store to kernel parameters");
      if (addr + size > L_.kernelParams.size()) oob("param offset beyond the kernel's parameters");
      return L_.kernelParams.data() + addr;
    default: faultAt(w, lane, I, "access to an unsupported state space");
  }
}

// ---- the emulator ----------------------------------------------------------------------------

namespace {

class EmulatorImpl : public Emulator {
 public:
  bool init(const Module& m, std::string& error) { return decodeProgram(m, program_, error); }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    RunResult result;
    Launch launch(program_, options);
    if (!launch.prepare(spec, result.error)) return result;
    launch.runAll(result);
    result.ok = result.fault.empty();
    return result;
  }
  std::vector<std::string> unsupportedInstructions() const override {
    std::vector<std::string> out;
    for (const auto& u : program_.unsupported)
      out.push_back(program_.fileName + ":" + std::to_string(u.line) + ": " + u.function + ": " + u.text +
                    (u.why.empty() ? "" : std::string(" (") + (u.invalid ? "invalid: " : "") + u.why + ")"));
    return out;
  }

 private:
  Program program_;
};

}  // namespace

std::unique_ptr<Emulator> Emulator::create(const Module& m, std::string& error) {
  // Only verified instructions reach the decoder: every operand has the shape and type its
  // signature gives, so no execution kernel ever sees a missing or ill-kinded operand.
  DiagEngine diags;
  if (!verifyModule(m, diags)) {
    error = diags.str();
    while (!error.empty() && error.back() == '\n') error.pop_back();
    return nullptr;
  }
  auto e = std::make_unique<EmulatorImpl>();
  if (!e->init(m, error)) return nullptr;
  return e;
}

}  // namespace ptxopt::emu
