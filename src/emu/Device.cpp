// The Device (issue #33): one GlobalMemory that lives as long as the device, holding the host's
// allocations and every loaded module's variables (each .global variable an allocation, each
// module's constant image another); launches run over it without owning it (Launch::prepare
// with a GlobalMemory and a ModuleMemory). The memory map changes only in allocate, release and
// load, never during a launch, so kernels' accesses take no lock. A Device is not thread-safe:
// its caller runs one call at a time.
#include "ptxopt/emu/Device.h"

#include <cstdio>
#include <cstring>

#include "Cta.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/support/Text.h"

namespace ptxopt::emu {

struct Device::Impl {
  struct Loaded {
    std::string name;
    Program program;
    ModuleMemory vars;
  };
  GlobalMemory mem;
  std::vector<std::unique_ptr<Loaded>> modules;

  const Loaded* module(int id) const {
    return id >= 0 && static_cast<size_t>(id) < modules.size() ? modules[static_cast<size_t>(id)].get() : nullptr;
  }

  // The host bytes of the device range [addr, addr+n): it must lie in one live allocation, or
  // in one variable of a module's constant image.
  uint8_t* range(uint64_t addr, uint64_t n, std::string& error) const {
    const GlobalMemory::Allocation* a = mem.holding(addr);
    if (!a) {
      error = hexNumber(addr) + " is not device memory: " + mem.describe(addr);
      return nullptr;
    }
    if (n > a->size - (addr - a->base)) {
      error = hexNumber(addr) + " + " + std::to_string(n) + " bytes runs past the end of '" + a->name + "' (" + std::to_string(a->size) +
              " bytes at " + hexNumber(a->base) + ")";
      return nullptr;
    }
    if (a->kind == GlobalMemory::Kind::Variable)
      for (const auto& m : modules) {
        if (m->vars.constAddr != a->base) continue;
        uint64_t off = addr - a->base;
        for (const DConst& c : m->program.consts)
          if (off >= c.offset && off - c.offset < std::max<uint64_t>(c.size, 1) && n <= c.size - (off - c.offset))
            return a->bytes.get() + (addr - a->base);
        error = hexNumber(addr) + " + " + std::to_string(n) + " bytes is not inside one .const variable of '" + m->name + "'";
        return nullptr;
      }
    return a->bytes.get() + (addr - a->base);
  }
};

Device::Device(bool mapHostMemory) : impl_(std::make_unique<Impl>()) { impl_->mem.setMapHost(mapHostMemory); }
Device::~Device() = default;

uint64_t Device::allocate(uint64_t size, std::string_view name) {
  if (size == 0) return 0;
  return impl_->mem.allocate(size, 256, std::string(name));
}

uint64_t Device::allocateHostMapped(uint64_t size, std::string_view name) {
  if (size == 0) return 0;
  return impl_->mem.allocateHostMapped(size, std::string(name));
}

uint64_t Device::allocateAt(uint64_t addr, uint64_t size, std::string_view name) {
  if (size == 0) return 0;
  return impl_->mem.allocateAt(addr, size, std::string(name));
}

bool Device::isHostMapped(uint64_t addr, uint64_t n) const {
  const GlobalMemory::Allocation* a = impl_->mem.holding(addr);
  return a && a->hostMapped() && n <= a->size - (addr - a->base);
}

std::vector<std::pair<uint64_t, uint64_t>> Device::hostMappedAllocations() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const GlobalMemory::Allocation& a : impl_->mem.allocations())
    if (a.hostMapped()) out.emplace_back(a.base, a.size);
  return out;
}

bool Device::release(uint64_t addr) { return impl_->mem.release(addr); }

uint64_t Device::createTexture(const TextureDesc& d, std::string& error) {
  error = checkTexture(d);
  if (!error.empty()) return 0;
  const GlobalMemory::Allocation* a = impl_->mem.holding(d.base);
  if (!impl_->mem.find(d.base, d.spanBytes()) || !a || a->kind != GlobalMemory::Kind::Buffer) {
    error = "the texels of a " + describeTexture(d) + " texture (" + std::to_string(d.spanBytes()) + " bytes at " + hexNumber(d.base) +
            ") do not lie in one allocation: " + impl_->mem.describe(d.base);
    return 0;
  }
  return impl_->mem.createTexture(d);
}

bool Device::destroyTexture(uint64_t handle) { return impl_->mem.destroyTexture(handle); }

const TextureDesc* Device::texture(uint64_t handle) const { return impl_->mem.texture(handle); }

void Device::releaseAll() {
  std::vector<uint64_t> buffers;
  for (const GlobalMemory::Allocation& a : impl_->mem.allocations())
    if (a.kind == GlobalMemory::Kind::Buffer) buffers.push_back(a.base);
  for (uint64_t a : buffers) impl_->mem.release(a);
}

bool Device::write(uint64_t addr, const void* src, uint64_t n, std::string& error) {
  if (n == 0) return true;
  uint8_t* p = impl_->range(addr, n, error);
  if (!p) return false;
  std::memcpy(p, src, n);
  return true;
}

bool Device::read(uint64_t addr, void* dst, uint64_t n, std::string& error) const {
  if (n == 0) return true;
  const uint8_t* p = impl_->range(addr, n, error);
  if (!p) return false;
  std::memcpy(dst, p, n);
  return true;
}

bool Device::fill(uint64_t addr, uint8_t value, uint64_t n, std::string& error) {
  if (n == 0) return true;
  uint8_t* p = impl_->range(addr, n, error);
  if (!p) return false;
  std::memset(p, value, n);
  return true;
}

bool Device::copy(uint64_t dst, uint64_t src, uint64_t n, std::string& error) {
  if (n == 0) return true;
  uint8_t* d = impl_->range(dst, n, error);
  if (!d) return false;
  const uint8_t* s = impl_->range(src, n, error);
  if (!s) return false;
  std::memmove(d, s, n);
  return true;
}

uint64_t Device::bytesInUse() const { return impl_->mem.bytesIn(GlobalMemory::Kind::Buffer); }

std::string Device::firstDifference(const Device& other) const {
  const auto &mine = impl_->mem.allocations(), &theirs = other.impl_->mem.allocations();
  auto where = [](const GlobalMemory::Allocation& a) {
    return "'" + a.name + "' (" + std::to_string(a.size) + " bytes at " + hexNumber(a.base) + ")";
  };
  for (size_t k = 0; k < mine.size() || k < theirs.size(); ++k) {
    if (k >= theirs.size()) return where(mine[k]) + " exists here only";
    if (k >= mine.size()) return where(theirs[k]) + " exists there only";
    const GlobalMemory::Allocation &a = mine[k], &b = theirs[k];
    if (a.base != b.base || a.size != b.size) return where(a) + " here, " + where(b) + " there";
    if (std::memcmp(a.bytes.get(), b.bytes.get(), a.size) == 0) continue;
    uint64_t i = 0;
    while (a.bytes[i] == b.bytes[i]) ++i;
    char bytes[64];
    std::snprintf(bytes, sizeof bytes, ": 0x%02x here, 0x%02x there", a.bytes[i], b.bytes[i]);
    return where(a) + ", byte " + std::to_string(i) + " (address " + hexNumber(a.base + i) + ")" + bytes;
  }
  return "";
}

int Device::load(const Module& m, std::string_view name, std::string& error) {
  DiagEngine diags;
  if (!verifyModule(m, diags)) {
    error = diags.str();
    while (!error.empty() && error.back() == '\n') error.pop_back();
    return -1;
  }
  auto loaded = std::make_unique<Impl::Loaded>();
  loaded->name = std::string(name);
  if (!decodeProgram(m, loaded->program, error)) return -1;
  if (!placeModuleVariables(loaded->program, impl_->mem, true, loaded->vars, error)) {
    // Give back what was placed before the failure.
    for (uint64_t a : loaded->vars.globalVarAddr) impl_->mem.release(a, GlobalMemory::Kind::Variable);
    if (loaded->vars.constAddr) impl_->mem.release(loaded->vars.constAddr, GlobalMemory::Kind::Variable);
    return -1;
  }
  impl_->modules.push_back(std::move(loaded));
  return static_cast<int>(impl_->modules.size() - 1);
}

bool Device::symbol(int module, std::string_view name, uint64_t& addr, uint64_t& size) const {
  const Impl::Loaded* m = impl_->module(module);
  if (!m) return false;
  const Program& P = m->program;
  for (size_t k = 0; k < P.globals.size(); ++k)
    if (P.globals[k].name == name) {
      addr = m->vars.globalVarAddr[k];
      size = P.globals[k].var->sizeInBytes();
      return true;
    }
  for (const DConst& c : P.consts)
    if (c.name == name) {
      addr = m->vars.constAddr + c.offset;
      size = c.size;
      return true;
    }
  return false;
}

bool Device::kernelParams(int module, std::string_view kernel, std::vector<ParamSlot>& slots, uint64_t& blockSize) const {
  const Impl::Loaded* m = impl_->module(module);
  if (!m) return false;
  for (const DFunction& f : m->program.functions) {
    if (!f.ir->isEntry || f.name != kernel) continue;
    slots.clear();
    for (size_t k = 0; k < f.ir->params.size(); ++k)
      slots.push_back(ParamSlot{std::string(m->program.module->str(f.ir->params[k].name)), f.paramOffsets[k], f.paramSizes[k],
                                f.paramAligns[k]});
    blockSize = kernelParamBlockSize(f);
    return true;
  }
  return false;
}

RunResult Device::launch(int module, const DeviceLaunch& l, const RunOptions& options) {
  RunResult result;
  const Impl::Loaded* m = impl_->module(module);
  if (!m) {
    result.error = "launch of '" + l.kernel + "': no module " + std::to_string(module) + " on the device";
    return result;
  }
  Launch launch(m->program, options);
  if (!launch.prepare(impl_->mem, m->vars, l, result.error)) return result;
  launch.runAll(result);
  result.ok = result.fault.empty();
  return result;
}

}  // namespace ptxopt::emu
