// What a run left behind, for people: buffer elements as text, and the first difference
// between two runs of one launch.
#include <charconv>
#include <cstdio>
#include <cstring>

#include "ptxopt/emu/Emulator.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {

std::string elementText(const BufferResult& b, size_t k) {
  const uint8_t* p = b.bytes.data() + k * elemBytes(b.type);
  char buf[64];
  auto shortest = [&](double d) {
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
  };
  switch (b.type) {
    case ElemType::S8: return std::to_string(*reinterpret_cast<const int8_t*>(p));
    case ElemType::S16: { int16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case ElemType::S32: { int32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case ElemType::S64: { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case ElemType::U8: return std::to_string(*p);
    case ElemType::U16: { uint16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case ElemType::U32: { uint32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case ElemType::U64: { uint64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case ElemType::F16: { uint16_t v; std::memcpy(&v, p, 2); return shortest(halfToDouble(v)); }
    case ElemType::BF16: { uint16_t v; std::memcpy(&v, p, 2); return shortest(bfloat16ToDouble(v)); }
    case ElemType::F32: {
      float v;
      std::memcpy(&v, p, 4);
      auto r = std::to_chars(buf, buf + sizeof buf, v);
      return std::string(buf, r.ptr);
    }
    case ElemType::F64: { double v; std::memcpy(&v, p, 8); return shortest(v); }
  }
  return "?";
}

std::string elementBits(const BufferResult& b, size_t k) {
  unsigned eb = elemBytes(b.type);
  uint64_t v = 0;
  std::memcpy(&v, b.bytes.data() + k * eb, eb);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(eb * 2), static_cast<unsigned long long>(v));
  return buf;
}

std::string firstDifference(const RunResult& a, const RunResult& b, const std::string& nameA, const std::string& nameB) {
  if (a.buffers.size() != b.buffers.size()) return "the runs have different buffers";
  for (size_t k = 0; k < a.buffers.size(); ++k) {
    const BufferResult &x = a.buffers[k], &y = b.buffers[k];
    if (x.bytes == y.bytes) continue;
    size_t eb = elemBytes(x.type);
    for (size_t i = 0; i * eb < x.bytes.size() && i * eb < y.bytes.size(); ++i)
      if (std::memcmp(x.bytes.data() + i * eb, y.bytes.data() + i * eb, eb) != 0)
        return "buffer '" + x.name + "' differs at index " + std::to_string(i) + ": " + elementText(x, i) + " (" +
               elementBits(x, i) + ") in " + nameA + ", " + elementText(y, i) + " (" + elementBits(y, i) + ") in " + nameB;
    return "buffer '" + x.name + "' has different sizes";
  }
  if (a.stdoutText != b.stdoutText) return "the printf output differs between " + nameA + " and " + nameB;
  return {};
}

}  // namespace ptxopt::emu
