// Fuzz target for the emulator: whatever parses and verifies is run on a small launch made up
// from the first kernel's parameters (pointers get a 4 KiB buffer, scalars a small value,
// structs zero bytes), with a low instruction limit. A fault or an error is a fine answer; a
// crash, a sanitizer report or a hang is not. The input's last byte picks the schedule and
// whether races are checked.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCommon.h"
#include "ptxopt/emu/Emulator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptxopt;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = fuzz::parseVerified(text);
  if (!m) return 0;
  std::string error;
  auto emu = emu::Emulator::create(*m, error);
  if (!emu) return 0;
  const Function* kernel = nullptr;
  for (const auto& f : m->functions())
    if (f->isEntry && f->hasBody) {
      kernel = f.get();
      break;
    }
  if (!kernel) return 0;
  emu::LaunchSpec spec;
  spec.path = "fuzz.json";
  spec.kernel = std::string(kernel->name());
  spec.grid = {2, 1, 1};
  spec.block = {48, 1, 1};
  spec.dynamicSharedBytes = 256;
  for (const Variable& v : kernel->params) {
    emu::ParamSpec p;
    p.name = std::string(m->str(v.name));
    uint64_t bytes = v.sizeInBytes();
    if (!v.dims.empty() || v.vec) {
      p.kind = emu::ParamSpec::Kind::Bytes;
      p.bytes.assign(bytes, 0);
    } else if (bytes == 8) {
      p.kind = emu::ParamSpec::Kind::Buffer;
      p.type = emu::ElemType::U8;
      p.count = 4096;
      p.init.kind = emu::BufferInit::Kind::Iota;
    } else {
      p.kind = emu::ParamSpec::Kind::Scalar;
      p.type = bytes == 1 ? emu::ElemType::U8 : bytes == 2 ? emu::ElemType::U16 : emu::ElemType::U32;
      p.value.kind = emu::SpecNumber::Kind::UInt;
      p.value.u = 3;
    }
    spec.params.push_back(std::move(p));
  }
  emu::RunOptions opts;
  opts.jobs = 1;
  opts.maxInstructions = 100000;
  const uint8_t knob = size ? data[size - 1] : 0;
  opts.schedule = (knob & 1) ? emu::RunOptions::Schedule::Random : emu::RunOptions::Schedule::RoundRobin;
  opts.seed = knob;
  opts.checkRaces = knob & 2;
  opts.perLineMetrics = knob & 4;
  opts.fastPaths = !(knob & 8);
  (void)emu->run(spec, opts);
  return 0;
}
