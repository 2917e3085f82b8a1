#include "ptxopt/emu/LaunchSpec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "ptxopt/support/File.h"
#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {
namespace {

using json = nlohmann::json;

struct TypeRow {
  ElemType t;
  const char* name;
  unsigned bytes;
};
constexpr TypeRow kTypes[] = {
    {ElemType::S8, "s8", 1},   {ElemType::S16, "s16", 2},   {ElemType::S32, "s32", 4}, {ElemType::S64, "s64", 8},
    {ElemType::U8, "u8", 1},   {ElemType::U16, "u16", 2},   {ElemType::U32, "u32", 4}, {ElemType::U64, "u64", 8},
    {ElemType::F16, "f16", 2}, {ElemType::BF16, "bf16", 2}, {ElemType::F32, "f32", 4}, {ElemType::F64, "f64", 8},
};

struct SpecError {
  std::string message;
};

[[noreturn]] void fail(const std::string& field, const std::string& what) { throw SpecError{field + ": " + what}; }

SpecNumber number(const json& j, const std::string& field) {
  SpecNumber n;
  if (j.is_number_integer()) {
    if (j.is_number_unsigned()) {
      n.kind = SpecNumber::Kind::UInt;
      n.u = j.get<uint64_t>();
    } else {
      n.kind = SpecNumber::Kind::Int;
      n.i = j.get<int64_t>();
    }
    return n;
  }
  if (j.is_number_float()) {
    n.kind = SpecNumber::Kind::Float;
    n.f = j.get<double>();
    return n;
  }
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    n.kind = SpecNumber::Kind::Float;
    if (s == "nan") n.f = std::numeric_limits<double>::quiet_NaN();
    else if (s == "inf") n.f = std::numeric_limits<double>::infinity();
    else if (s == "-inf") n.f = -std::numeric_limits<double>::infinity();
    else if (s == "-0.0" || s == "-0") n.f = -0.0;
    else if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      n.kind = SpecNumber::Kind::RawBits;
      try {
        size_t used = 0;
        n.u = std::stoull(s.substr(2), &used, 16);
        if (used != s.size() - 2) fail(field, "malformed hexadecimal bit pattern '" + s + "'");
      } catch (const std::exception&) {
        fail(field, "malformed hexadecimal bit pattern '" + s + "'");
      }
    } else {
      fail(field, "expected a number, \"nan\", \"inf\", \"-inf\", \"-0.0\" or \"0x...\", found \"" + s + "\"");
    }
    return n;
  }
  fail(field, "expected a number");
}

ElemType elemType(const json& j, const std::string& field) {
  if (!j.is_string()) fail(field, "expected a type name such as \"f32\"");
  ElemType t;
  if (!parseElemType(j.get<std::string>(), t))
    fail(field, "unknown element type \"" + j.get<std::string>() +
                    "\" (s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64)");
  return t;
}

uint64_t count(const json& j, const std::string& field) {
  if (!j.is_number_integer() || (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() < 0))
    fail(field, "expected a non-negative integer");
  uint64_t c = j.get<uint64_t>();
  if (c > (uint64_t(1) << 32)) fail(field, "too large (at most 2^32 elements)");
  return c;
}

std::array<uint32_t, 3> dims(const json& j, const std::string& field) {
  std::array<uint32_t, 3> d{1, 1, 1};
  if (j.is_number_integer()) {
    d[0] = static_cast<uint32_t>(count(j, field));
  } else if (j.is_array() && !j.empty() && j.size() <= 3) {
    for (size_t k = 0; k < j.size(); ++k) {
      uint64_t v = count(j[k], field + "[" + std::to_string(k) + "]");
      if (v == 0 || v > 0x7FFFFFFFu) fail(field + "[" + std::to_string(k) + "]", "must be between 1 and 2^31-1");
      d[k] = static_cast<uint32_t>(v);
    }
  } else {
    fail(field, "expected [x, y, z] (one to three positive integers)");
  }
  return d;
}

std::string dirOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

BufferInit bufferInit(const json& j, const std::string& field, const std::string& specDir) {
  BufferInit init;
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s == "zero") init.kind = BufferInit::Kind::Zero;
    else if (s == "iota") init.kind = BufferInit::Kind::Iota;
    else fail(field, "unknown initializer \"" + s + "\" (zero, iota, {fill}, {values}, {random}, {file})");
    return init;
  }
  if (!j.is_object() || j.size() != 1) fail(field, "expected \"zero\", \"iota\" or an object with one key");
  auto [key, val] = *j.items().begin();
  std::string f = field + "." + key;
  if (key == "fill") {
    init.kind = BufferInit::Kind::Fill;
    init.fill = number(val, f);
  } else if (key == "values") {
    if (!val.is_array()) fail(f, "expected an array of numbers");
    init.kind = BufferInit::Kind::Values;
    for (size_t k = 0; k < val.size(); ++k) init.values.push_back(number(val[k], f + "[" + std::to_string(k) + "]"));
  } else if (key == "random") {
    if (!val.is_object()) fail(f, "expected {\"seed\": S, \"min\": A, \"max\": B}");
    init.kind = BufferInit::Kind::Random;
    for (const char* k : {"seed", "min", "max"})
      if (!val.contains(k)) fail(f, std::string("missing \"") + k + "\"");
    SpecNumber seed = number(val["seed"], f + ".seed");
    if (seed.kind != SpecNumber::Kind::Int && seed.kind != SpecNumber::Kind::UInt) fail(f + ".seed", "expected an integer");
    init.seed = seed.kind == SpecNumber::Kind::UInt ? seed.u : static_cast<uint64_t>(seed.i);
    init.min = number(val["min"], f + ".min");
    init.max = number(val["max"], f + ".max");
  } else if (key == "file") {
    if (!val.is_string()) fail(f, "expected a file name");
    init.kind = BufferInit::Kind::File;
    std::string file = val.get<std::string>();
    init.file = (!file.empty() && file[0] == '/') ? file : specDir + file;
  } else {
    fail(field, "unknown initializer \"" + key + "\"");
  }
  return init;
}

double asDouble(const SpecNumber& n) {
  switch (n.kind) {
    case SpecNumber::Kind::Int: return static_cast<double>(n.i);
    case SpecNumber::Kind::UInt: return static_cast<double>(n.u);
    case SpecNumber::Kind::Float: return n.f;
    case SpecNumber::Kind::RawBits: return bitsDouble(n.u);
  }
  return 0;
}

std::string describe(const SpecNumber& n) {
  switch (n.kind) {
    case SpecNumber::Kind::Int: return std::to_string(n.i);
    case SpecNumber::Kind::UInt: return std::to_string(n.u);
    case SpecNumber::Kind::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", n.f);
      return buf;
    }
    case SpecNumber::Kind::RawBits: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(n.u));
      return buf;
    }
  }
  return "?";
}

const char* const kAddressModes[] = {"wrap", "clamp", "mirror", "border"};

TexAddressMode addressMode(const json& j, const std::string& field) {
  if (j.is_string())
    for (int k = 0; k < 4; ++k)
      if (j.get<std::string>() == kAddressModes[k]) return static_cast<TexAddressMode>(k);
  fail(field, "expected \"wrap\", \"clamp\", \"mirror\" or \"border\"");
}

// {"type", "channels", "extent", "layered", "resource", "pitch", "init", "filter", "address",
//  "normalized_coords", "read", "border_color", "cubemap"}
// A surface ("surface": {...}) takes the first five fields only: packed texels, no sampler.
// "tensormap": {"buffer": NAME, "dims": [...], "strides": [...], "box": [...]}: dims and box have
// one entry per dimension (innermost first), strides one fewer (bytes; default: packed rows).
void tensorMapParam(const json& t, const std::string& field, ParamSpec& p) {
  if (!t.is_object()) fail(field, "expected an object");
  for (auto& [key, val] : t.items())
    if (key != "buffer" && key != "dims" && key != "strides" && key != "box")
      fail(field + "." + key, "unknown field (a tensor map has buffer, dims, strides, box)");
  p.kind = ParamSpec::Kind::TensorMap;
  TensorMapSpec& m = p.tensorMap;
  if (!t.contains("buffer") || !t["buffer"].is_string()) fail(field + ".buffer", "expected the name of a buffer parameter");
  m.buffer = t["buffer"].get<std::string>();
  if (!t.contains("dims") || !t["dims"].is_array() || t["dims"].empty() || t["dims"].size() > 5)
    fail(field + ".dims", "expected 1 to 5 extents, innermost first");
  m.rank = static_cast<uint32_t>(t["dims"].size());
  for (uint32_t k = 0; k < m.rank; ++k) m.dims[k] = count(t["dims"][k], field + ".dims[" + std::to_string(k) + "]");
  if (!t.contains("box") || !t["box"].is_array() || t["box"].size() != m.rank)
    fail(field + ".box", "expected " + std::to_string(m.rank) + " box sizes, one per dimension");
  for (uint32_t k = 0; k < m.rank; ++k) {
    const std::string at = field + ".box[" + std::to_string(k) + "]";
    const uint64_t v = count(t["box"][k], at);
    if (v < 1 || v > 256) fail(at, "a box has 1 to 256 elements per dimension");
    m.box[k] = static_cast<uint32_t>(v);
  }
  if (t.contains("strides")) {
    if (!t["strides"].is_array() || t["strides"].size() != m.rank - 1)
      fail(field + ".strides", "expected " + std::to_string(m.rank - 1) + " strides in bytes (dimensions 1 and up)");
    for (uint32_t k = 0; k + 1 < m.rank; ++k) {
      const json& v = t["strides"][k];
      if (!v.is_number_unsigned()) fail(field + ".strides[" + std::to_string(k) + "]", "expected a byte count");
      m.strides[k] = v.get<uint64_t>();
    }
  }
}

void textureParam(const json& t, const std::string& field, const std::string& dir, ParamSpec& p, bool surface) {
  if (!t.is_object()) fail(field, "expected an object");
  for (auto& [key, val] : t.items()) {
    static const char* kKnown[] = {"type", "channels", "extent", "layered", "init", "resource", "pitch", "filter",
                                   "address", "normalized_coords", "read", "border_color", "cubemap"};
    bool known = false;
    for (size_t k = 0; k < (surface ? 5 : std::size(kKnown)); ++k) known |= key == kKnown[k];
    if (!known) fail(field + "." + key, surface ? "unknown field (a surface has type, channels, extent, layered, init)" : "unknown field");
  }
  p.kind = ParamSpec::Kind::Texture;
  TextureDesc& d = p.texture;
  d.surface = surface;
  if (!t.contains("type")) fail(field + ".type", "missing");
  p.type = elemType(t["type"], field + ".type");
  switch (p.type) {
    case ElemType::S8: case ElemType::S16: case ElemType::S32: d.kind = TexChannelKind::Signed; break;
    case ElemType::U8: case ElemType::U16: case ElemType::U32: d.kind = TexChannelKind::Unsigned; break;
    case ElemType::F16: case ElemType::F32: d.kind = TexChannelKind::Float; break;
    default: fail(field + ".type", std::string("a texture's channels are s8, s16, s32, u8, u16, u32, f16 or f32, not ") + elemTypeName(p.type));
  }
  d.channelBits = static_cast<uint8_t>(elemBytes(p.type) * 8);
  if (t.contains("channels")) {
    uint64_t c = count(t["channels"], field + ".channels");
    if (c != 1 && c != 2 && c != 4) fail(field + ".channels", "1, 2 or 4");
    d.channels = static_cast<uint8_t>(c);
  }
  if (t.contains("layered")) {
    if (!t["layered"].is_boolean()) fail(field + ".layered", "expected true or false");
    d.layered = t["layered"].get<bool>();
  }
  if (!t.contains("extent")) fail(field + ".extent", "missing ([width], [width, height] or [width, height, depth])");
  std::array<uint32_t, 3> e = dims(t["extent"], field + ".extent");
  size_t n = t["extent"].is_array() ? t["extent"].size() : 1;
  if (d.layered && n < 2) fail(field + ".extent", "a layered texture's last dimension is its layer count");
  d.width = e[0], d.height = e[1], d.depth = e[2];
  d.dims = static_cast<uint8_t>(d.layered ? n - 1 : n);
  if (t.contains("cubemap")) {
    if (!t["cubemap"].is_boolean()) fail(field + ".cubemap", "expected true or false");
    d.cubemap = t["cubemap"].get<bool>();
  }
  if (d.cubemap) {  // six faces of width x width texels per cubemap, stored as layers
    if (n != (d.layered ? 3u : 2u))
      fail(field + ".extent", d.layered ? "a layered cubemap's extent is [width, width, cubemaps]" : "a cubemap's extent is [width, width]");
    d.dims = 2;
    d.depth = 6 * (d.layered ? e[2] : 1);
  }
  std::string resource = "array";
  if (t.contains("resource")) {
    if (!t["resource"].is_string()) fail(field + ".resource", "expected \"array\", \"pitch2d\" or \"linear\"");
    resource = t["resource"].get<std::string>();
  }
  if (resource == "array") d.resource = TexResource::Array;
  else if (resource == "pitch2d") d.resource = TexResource::Pitch2D;
  else if (resource == "linear") d.resource = TexResource::Linear;
  else fail(field + ".resource", "expected \"array\", \"pitch2d\" or \"linear\", found \"" + resource + "\"");
  if (t.contains("pitch")) d.pitch = count(t["pitch"], field + ".pitch");
  p.count = uint64_t(d.channels) * d.width * d.height * d.depth;
  p.init = t.contains("init") ? bufferInit(t["init"], field + ".init", dir) : BufferInit{};
  if (t.contains("filter")) {
    const json& f = t["filter"];
    if (f == "point") d.filter = TexFilter::Point;
    else if (f == "linear") d.filter = TexFilter::Linear;
    else fail(field + ".filter", "expected \"point\" or \"linear\"");
  }
  if (t.contains("address")) {
    const json& a = t["address"];
    if (a.is_array()) {
      if (a.empty() || a.size() > 3) fail(field + ".address", "one to three address modes");
      for (size_t k = 0; k < 3; ++k)
        d.addressMode[k] = addressMode(a[std::min(k, a.size() - 1)], field + ".address[" + std::to_string(std::min(k, a.size() - 1)) + "]");
    } else {
      d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = addressMode(a, field + ".address");
    }
  }
  if (t.contains("normalized_coords")) {
    if (!t["normalized_coords"].is_boolean()) fail(field + ".normalized_coords", "expected true or false");
    d.normalizedCoords = t["normalized_coords"].get<bool>();
  }
  if (t.contains("read")) {
    const json& r = t["read"];
    if (r == "element") d.readMode = TexReadMode::ElementType;
    else if (r == "normalized_float") d.readMode = TexReadMode::NormalizedFloat;
    else fail(field + ".read", "expected \"element\" or \"normalized_float\"");
  }
  if (t.contains("border_color")) {
    const json& b = t["border_color"];
    if (!b.is_array() || b.size() != 4) fail(field + ".border_color", "expected four numbers");
    for (size_t k = 0; k < 4; ++k) {
      uint8_t bytes[4];
      std::string err;
      SpecNumber num = number(b[k], field + ".border_color[" + std::to_string(k) + "]");
      if (!encodeNumber(num, d.readsFloat() ? ElemType::F32 : (d.kind == TexChannelKind::Signed ? ElemType::S32 : ElemType::U32), bytes, err))
        fail(field + ".border_color[" + std::to_string(k) + "]", err);
      std::memcpy(&d.borderColor[k], bytes, 4);
    }
  }
  std::string why = checkTexture(d);
  if (!why.empty()) fail(field, why);
}

}  // namespace

unsigned elemBytes(ElemType t) {
  for (const TypeRow& r : kTypes)
    if (r.t == t) return r.bytes;
  return 0;
}

const char* elemTypeName(ElemType t) {
  for (const TypeRow& r : kTypes)
    if (r.t == t) return r.name;
  return "?";
}

bool parseElemType(const std::string& name, ElemType& out) {
  for (const TypeRow& r : kTypes)
    if (name == r.name) {
      out = r.t;
      return true;
    }
  return false;
}

bool isFloatElem(ElemType t) {
  return t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32 || t == ElemType::F64;
}

uint64_t splitmix64Next(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool encodeNumber(const SpecNumber& n, ElemType t, uint8_t* out, std::string& error) {
  unsigned bytes = elemBytes(t);
  if (n.kind == SpecNumber::Kind::RawBits) {
    if (bytes < 8 && (n.u >> (8 * bytes)) != 0) {
      error = describe(n) + " has more bits than " + elemTypeName(t);
      return false;
    }
    std::memcpy(out, &n.u, bytes);  // little-endian host
    return true;
  }
  if (isFloatElem(t)) {
    double d = asDouble(n);
    if (t == ElemType::F64) {
      std::memcpy(out, &d, 8);
    } else if (t == ElemType::F32) {
      float f = static_cast<float>(d);  // IEEE round to nearest even
      std::memcpy(out, &f, 4);
    } else {
      uint16_t h = t == ElemType::F16 ? doubleToHalf(d) : doubleToBFloat16(d);
      std::memcpy(out, &h, 2);
    }
    return true;
  }
  // Integers: the value must be integral and in range.
  bool isSigned = t == ElemType::S8 || t == ElemType::S16 || t == ElemType::S32 || t == ElemType::S64;
  __int128 v;
  if (n.kind == SpecNumber::Kind::Float) {
    if (!std::isfinite(n.f) || std::floor(n.f) != n.f || std::fabs(n.f) > 1.8446744073709552e19) {
      error = describe(n) + " is not an integer of type " + elemTypeName(t);
      return false;
    }
    v = static_cast<__int128>(n.f);
  } else if (n.kind == SpecNumber::Kind::UInt) {
    v = static_cast<__int128>(n.u);
  } else {
    v = n.i;
  }
  __int128 lo = isSigned ? -(static_cast<__int128>(1) << (8 * bytes - 1)) : 0;
  __int128 hi = isSigned ? (static_cast<__int128>(1) << (8 * bytes - 1)) - 1 : (static_cast<__int128>(1) << (8 * bytes)) - 1;
  if (v < lo || v > hi) {
    error = describe(n) + " does not fit " + elemTypeName(t);
    return false;
  }
  uint64_t bits = static_cast<uint64_t>(v);
  std::memcpy(out, &bits, bytes);
  return true;
}

bool initialBufferContents(const ParamSpec& p, std::vector<uint8_t>& out, std::string& error) {
  unsigned eb = elemBytes(p.type);
  out.assign(p.count * eb, 0);
  const BufferInit& in = p.init;
  std::string field = "params[" + p.name + "].buffer.init";
  auto put = [&](uint64_t k, const SpecNumber& n) {
    std::string e;
    if (!encodeNumber(n, p.type, out.data() + k * eb, e)) {
      error = field + "[" + std::to_string(k) + "]: " + e;
      return false;
    }
    return true;
  };
  switch (in.kind) {
    case BufferInit::Kind::Zero: return true;
    case BufferInit::Kind::Iota:
      for (uint64_t k = 0; k < p.count; ++k) {
        SpecNumber n;
        n.kind = SpecNumber::Kind::UInt;
        n.u = k;
        if (!put(k, n)) return false;
      }
      return true;
    case BufferInit::Kind::Fill:
      for (uint64_t k = 0; k < p.count; ++k)
        if (!put(k, in.fill)) return false;
      return true;
    case BufferInit::Kind::Values:
      if (in.values.size() != p.count) {
        error = field + ".values: " + std::to_string(in.values.size()) + " values for " + std::to_string(p.count) +
                " elements";
        return false;
      }
      for (uint64_t k = 0; k < p.count; ++k)
        if (!put(k, in.values[k])) return false;
      return true;
    case BufferInit::Kind::Random: {
      uint64_t state = in.seed;
      if (isFloatElem(p.type)) {
        double lo = asDouble(in.min), hi = asDouble(in.max);
        if (!(lo <= hi)) {
          error = field + ".random: min must not exceed max";
          return false;
        }
        for (uint64_t k = 0; k < p.count; ++k) {
          double u = static_cast<double>(splitmix64Next(state) >> 11) * 0x1.0p-53;
          SpecNumber n;
          n.kind = SpecNumber::Kind::Float;
          n.f = lo + (hi - lo) * u;
          if (!put(k, n)) return false;
        }
      } else {
        auto asInt = [&](const SpecNumber& n, const char* what, __int128& v) {
          if (n.kind == SpecNumber::Kind::Int) v = n.i;
          else if (n.kind == SpecNumber::Kind::UInt) v = n.u;
          else if (n.kind == SpecNumber::Kind::Float && std::floor(n.f) == n.f && std::fabs(n.f) < 9.2e18) v = static_cast<__int128>(n.f);
          else {
            error = field + ".random." + what + ": expected an integer";
            return false;
          }
          return true;
        };
        __int128 lo, hi;
        if (!asInt(in.min, "min", lo) || !asInt(in.max, "max", hi)) return false;
        if (lo > hi) {
          error = field + ".random: min must not exceed max";
          return false;
        }
        unsigned __int128 range = static_cast<unsigned __int128>(hi - lo) + 1;
        for (uint64_t k = 0; k < p.count; ++k) {
          uint64_t z = splitmix64Next(state);
          __int128 v = lo + static_cast<__int128>(range > UINT64_MAX ? z : z % static_cast<uint64_t>(range));
          SpecNumber n;
          if (v < 0) {
            n.kind = SpecNumber::Kind::Int;
            n.i = static_cast<int64_t>(v);
          } else {
            n.kind = SpecNumber::Kind::UInt;
            n.u = static_cast<uint64_t>(v);
          }
          if (!put(k, n)) return false;
        }
      }
      return true;
    }
    case BufferInit::Kind::File: {
      std::string text, e;
      if (!readFile(in.file, text, e)) {
        error = field + ".file: " + e;
        return false;
      }
      if (text.size() != out.size()) {
        error = field + ".file: '" + in.file + "' holds " + std::to_string(text.size()) + " bytes, the buffer " +
                std::to_string(out.size());
        return false;
      }
      std::memcpy(out.data(), text.data(), text.size());
      return true;
    }
  }
  return true;
}

bool parseLaunchSpec(const std::string& text, const std::string& path, LaunchSpec& spec, std::string& error) {
  spec = LaunchSpec{};
  spec.path = path;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    error = path + ": not valid JSON: " + e.what();
    return false;
  }
  try {
    if (!j.is_object()) fail("(top)", "expected an object");
    for (auto& [key, val] : j.items()) {
      static const char* kKnown[] = {"kernel", "grid", "block", "dynamic_shared_bytes", "params", "comment"};
      bool known = false;
      for (const char* k : kKnown) known |= key == k;
      if (!known) fail(key, "unknown field");
    }
    if (j.contains("kernel")) {
      if (!j["kernel"].is_string()) fail("kernel", "expected the entry's name");
      spec.kernel = j["kernel"].get<std::string>();
    }
    if (!j.contains("grid")) fail("grid", "missing");
    if (!j.contains("block")) fail("block", "missing");
    spec.grid = dims(j["grid"], "grid");
    spec.block = dims(j["block"], "block");
    uint64_t threads = uint64_t(spec.block[0]) * spec.block[1] * spec.block[2];
    if (threads > 1024) fail("block", "a CTA has at most 1024 threads, this one " + std::to_string(threads));
    if (j.contains("dynamic_shared_bytes")) {
      uint64_t d = count(j["dynamic_shared_bytes"], "dynamic_shared_bytes");
      if (d > (uint64_t(1) << 30)) fail("dynamic_shared_bytes", "too large");
      spec.dynamicSharedBytes = static_cast<uint32_t>(d);
    }
    if (j.contains("params")) {
      const json& ps = j["params"];
      if (!ps.is_array()) fail("params", "expected an array");
      std::string dir = dirOf(path);
      for (size_t k = 0; k < ps.size(); ++k) {
        const json& pj = ps[k];
        std::string field = "params[" + std::to_string(k) + "]";
        if (!pj.is_object()) fail(field, "expected an object");
        ParamSpec p;
        if (pj.contains("name")) {
          if (!pj["name"].is_string()) fail(field + ".name", "expected a string");
          p.name = pj["name"].get<std::string>();
        } else {
          p.name = "param" + std::to_string(k);
        }
        int kinds = pj.contains("buffer") + pj.contains("value") + pj.contains("bytes") + pj.contains("texture") +
                    pj.contains("surface") + pj.contains("tensormap");
        if (kinds != 1)
          fail(field,
               "needs exactly one of \"buffer\", \"value\" (with \"type\"), \"bytes\", \"texture\", \"surface\" or "
               "\"tensormap\"");
        if (pj.contains("tensormap")) {
          tensorMapParam(pj["tensormap"], field + ".tensormap", p);
        } else if (pj.contains("texture")) {
          textureParam(pj["texture"], field + ".texture", dir, p, false);
        } else if (pj.contains("surface")) {
          textureParam(pj["surface"], field + ".surface", dir, p, true);
        } else if (pj.contains("buffer")) {
          const json& b = pj["buffer"];
          if (!b.is_object()) fail(field + ".buffer", "expected an object");
          if (!b.contains("type")) fail(field + ".buffer.type", "missing");
          p.kind = ParamSpec::Kind::Buffer;
          p.type = elemType(b["type"], field + ".buffer.type");
          p.init = b.contains("init") ? bufferInit(b["init"], field + ".buffer.init", dir) : BufferInit{};
          if (b.contains("count")) {
            p.count = count(b["count"], field + ".buffer.count");
          } else if (p.init.kind == BufferInit::Kind::Values) {
            p.count = p.init.values.size();
          } else {
            fail(field + ".buffer.count", "missing");
          }
        } else if (pj.contains("value")) {
          if (!pj.contains("type")) fail(field + ".type", "missing (the scalar's type, such as \"s32\")");
          p.kind = ParamSpec::Kind::Scalar;
          p.type = elemType(pj["type"], field + ".type");
          p.value = number(pj["value"], field + ".value");
          uint8_t tmp[8];
          std::string e;
          if (!encodeNumber(p.value, p.type, tmp, e)) fail(field + ".value", e);
        } else {
          const json& b = pj["bytes"];
          if (!b.is_array()) fail(field + ".bytes", "expected an array of byte values");
          p.kind = ParamSpec::Kind::Bytes;
          for (size_t q = 0; q < b.size(); ++q) {
            if (!b[q].is_number_integer() || b[q].get<int64_t>() < 0 || b[q].get<int64_t>() > 255)
              fail(field + ".bytes[" + std::to_string(q) + "]", "expected a byte (0..255)");
            p.bytes.push_back(static_cast<uint8_t>(b[q].get<int64_t>()));
          }
        }
        spec.params.push_back(std::move(p));
      }
    }
  } catch (const SpecError& e) {
    error = path + ": " + e.message;
    return false;
  } catch (const json::exception& e) {
    error = path + ": " + e.what();
    return false;
  }
  return true;
}

bool loadLaunchSpec(const std::string& path, LaunchSpec& spec, std::string& error) {
  std::string text;
  if (!readFile(path, text, error)) return false;
  return parseLaunchSpec(text, path, spec, error);
}

namespace {

// A spec number as JSON text that `number` reads back to the same value.
std::string numberJson(const SpecNumber& n) {
  switch (n.kind) {
    case SpecNumber::Kind::Int: return std::to_string(n.i);
    case SpecNumber::Kind::UInt: return std::to_string(n.u);
    case SpecNumber::Kind::RawBits: return "\"" + describe(n) + "\"";
    case SpecNumber::Kind::Float:
      if (std::isnan(n.f)) return "\"nan\"";
      if (std::isinf(n.f)) return n.f > 0 ? "\"inf\"" : "\"-inf\"";
      if (n.f == 0 && std::signbit(n.f)) return "\"-0.0\"";
      {
        std::string t = describe(n);
        if (t.find_first_of(".eE") == std::string::npos) t += ".0";  // stays a float
        return t;
      }
  }
  return "0";
}

std::string dimsJson(const std::array<uint32_t, 3>& d) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
}

std::string initJson(const BufferInit& in) {
  switch (in.kind) {
    case BufferInit::Kind::Zero: return "\"zero\"";
    case BufferInit::Kind::Iota: return "\"iota\"";
    case BufferInit::Kind::Fill: return "{\"fill\": " + numberJson(in.fill) + "}";
    case BufferInit::Kind::Values: {
      std::string out = "{\"values\": [";
      for (size_t k = 0; k < in.values.size(); ++k) out += (k ? ", " : "") + numberJson(in.values[k]);
      return out + "]}";
    }
    case BufferInit::Kind::Random:
      return "{\"random\": {\"seed\": " + std::to_string(in.seed) + ", \"min\": " + numberJson(in.min) +
             ", \"max\": " + numberJson(in.max) + "}}";
    case BufferInit::Kind::File: return "{\"file\": " + json(in.file).dump() + "}";
  }
  return "\"zero\"";
}

std::string textureJson(const ParamSpec& p) {
  const TextureDesc& d = p.texture;
  std::string out = "{\"type\": \"" + std::string(elemTypeName(p.type)) + "\", \"channels\": " + std::to_string(d.channels);
  std::vector<uint32_t> e{d.width};
  if (d.dims + d.layered >= 2) e.push_back(d.height);
  if (d.dims + d.layered >= 3) e.push_back(d.cubemap ? d.depth / 6 : d.depth);
  out += ", \"extent\": [";
  for (size_t k = 0; k < e.size(); ++k) out += (k ? ", " : "") + std::to_string(e[k]);
  out += "]";
  if (d.layered) out += ", \"layered\": true";
  if (d.cubemap) out += ", \"cubemap\": true";
  if (d.surface) return out + ", \"init\": " + initJson(p.init) + "}";
  out += std::string(", \"resource\": \"") +
         (d.resource == TexResource::Array ? "array" : d.resource == TexResource::Pitch2D ? "pitch2d" : "linear") + "\"";
  if (d.pitch) out += ", \"pitch\": " + std::to_string(d.pitch);
  out += ", \"init\": " + initJson(p.init);
  out += std::string(", \"filter\": \"") + (d.filter == TexFilter::Linear ? "linear" : "point") + "\"";
  out += ", \"address\": [";
  for (int k = 0; k < 3; ++k) out += std::string(k ? ", " : "") + "\"" + kAddressModes[static_cast<int>(d.addressMode[k])] + "\"";
  out += "]";
  out += std::string(", \"normalized_coords\": ") + (d.normalizedCoords ? "true" : "false");
  out += std::string(", \"read\": \"") + (d.readMode == TexReadMode::NormalizedFloat ? "normalized_float" : "element") + "\"";
  out += ", \"border_color\": [";
  for (int k = 0; k < 4; ++k) {
    SpecNumber n;
    if (d.readsFloat()) {
      n.kind = SpecNumber::Kind::RawBits;
      n.u = d.borderColor[k];
    } else if (d.kind == TexChannelKind::Signed) {
      n.kind = SpecNumber::Kind::Int;
      n.i = static_cast<int32_t>(d.borderColor[k]);
    } else {
      n.kind = SpecNumber::Kind::UInt;
      n.u = d.borderColor[k];
    }
    out += (k ? ", " : "") + numberJson(n);
  }
  return out + "]}";
}

}  // namespace

std::string launchSpecToJson(const LaunchSpec& spec) {
  std::string out = "{\n";
  if (!spec.kernel.empty()) out += "  \"kernel\": " + json(spec.kernel).dump() + ",\n";
  out += "  \"grid\": " + dimsJson(spec.grid) + ",\n";
  out += "  \"block\": " + dimsJson(spec.block) + ",\n";
  out += "  \"dynamic_shared_bytes\": " + std::to_string(spec.dynamicSharedBytes) + ",\n";
  out += "  \"params\": [";
  for (size_t k = 0; k < spec.params.size(); ++k) {
    const ParamSpec& p = spec.params[k];
    out += k ? ",\n    " : "\n    ";
    out += "{\"name\": " + json(p.name).dump() + ", ";
    switch (p.kind) {
      case ParamSpec::Kind::Buffer:
        out += "\"buffer\": {\"type\": \"" + std::string(elemTypeName(p.type)) + "\", \"count\": " + std::to_string(p.count) +
               ", \"init\": " + initJson(p.init) + "}}";
        break;
      case ParamSpec::Kind::Scalar:
        out += "\"value\": " + numberJson(p.value) + ", \"type\": \"" + elemTypeName(p.type) + "\"}";
        break;
      case ParamSpec::Kind::Texture:
        out += std::string(p.texture.surface ? "\"surface\": " : "\"texture\": ") + textureJson(p) + "}";
        break;
      case ParamSpec::Kind::TensorMap: {
        const TensorMapSpec& m = p.tensorMap;
        auto list = [&](auto values, uint32_t n) {
          std::string l = "[";
          for (uint32_t k = 0; k < n; ++k) l += (k ? ", " : "") + std::to_string(values[k]);
          return l + "]";
        };
        const bool packed = std::all_of(m.strides.begin(), m.strides.end(), [](uint64_t v) { return v == 0; });
        out += "\"tensormap\": {\"buffer\": " + json(m.buffer).dump() + ", \"dims\": " + list(m.dims, m.rank) +
               (packed ? std::string() : ", \"strides\": " + list(m.strides, m.rank - 1)) + ", \"box\": " + list(m.box, m.rank) +
               "}}";
        break;
      }
      case ParamSpec::Kind::Bytes: {
        out += "\"bytes\": [";
        for (size_t q = 0; q < p.bytes.size(); ++q) out += (q ? ", " : "") + std::to_string(p.bytes[q]);
        out += "]}";
        break;
      }
    }
  }
  out += spec.params.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace ptxopt::emu
