// Texture fetches: addressing, filtering and read modes (docs/EMULATOR.md, "Textures").
#include "ptxopt/emu/Texture.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstring>

#include "ptxopt/support/FloatBits.h"

namespace ptxopt::emu {

std::string checkTexture(const TextureDesc& d) {
  if (d.channels != 1 && d.channels != 2 && d.channels != 4)
    return std::to_string(d.channels) + " channels (a texel has 1, 2 or 4)";
  if (d.channelBits != 8 && d.channelBits != 16 && d.channelBits != 32)
    return std::to_string(d.channelBits) + "-bit channels (8, 16 or 32)";
  if (d.kind == TexChannelKind::Float && d.channelBits == 8) return "8-bit float channels";
  if (d.dims < 1 || d.dims > 3) return std::to_string(d.dims) + " dimensions";
  if (d.layered && d.dims == 3) return "a layered 3D texture";
  if (d.cubemap) {
    if (d.dims != 2 || d.resource != TexResource::Array) return "a cubemap that is not a 2D array";
    if (d.width != d.height) return "a cubemap with faces of " + std::to_string(d.width) + "x" + std::to_string(d.height) + " texels (faces are square)";
    if (d.layered ? d.depth % 6 != 0 : d.depth != 6)
      return std::string(d.layered ? "a layered cubemap of " : "a cubemap of ") + std::to_string(d.depth) +
             " faces (" + (d.layered ? "six per cubemap)" : "six)");
  }
  if (!d.width || !d.height || !d.depth) return "an extent with a zero dimension";
  if (d.resource == TexResource::Linear && (d.dims != 1 || d.layered || d.height != 1 || d.depth != 1))
    return "a linear resource of more than one dimension";
  if (d.resource == TexResource::Pitch2D && (d.dims != 2 || d.layered || d.depth != 1))
    return "a pitch-2D resource that is not 2D";
  if (d.pitch && d.pitch < uint64_t(d.width) * d.texelBytes())
    return "a pitch of " + std::to_string(d.pitch) + " bytes, less than a row of " + std::to_string(d.width) +
           " texels";
  if (d.readMode == TexReadMode::NormalizedFloat && d.kind != TexChannelKind::Float && d.channelBits == 32)
    return "normalized-float reads of 32-bit integers (only 8- and 16-bit integers normalize)";
  if (d.filter == TexFilter::Linear && !d.readsFloat())
    return "linear filtering of a texture that reads as integers (cudaErrorInvalidFilterSetting)";
  for (int k = 0; k < 3; ++k)
    if (static_cast<uint8_t>(d.addressMode[k]) > 3) return "an unknown address mode";
  return {};
}

std::string describeTexture(const TextureDesc& d) {
  std::string s = d.cubemap ? (d.layered ? "layered cubemap " : "cubemap ") : std::to_string(d.dims) + "D" + (d.layered ? " layered " : " ");
  s += d.kind == TexChannelKind::Float ? "f" : d.kind == TexChannelKind::Signed ? "s" : "u";
  s += std::to_string(d.channelBits) + "x" + std::to_string(d.channels);
  s += d.resource == TexResource::Linear ? " linear " : d.resource == TexResource::Pitch2D ? " pitch2D " : " array ";
  s += std::to_string(d.width);
  if (d.dims >= 2 || (d.layered && d.dims == 1)) s += "x" + std::to_string(d.height);
  if (d.dims == 3 || (d.layered && d.dims == 2) || d.cubemap) s += "x" + std::to_string(d.depth);
  return s;
}

namespace {

// A channel of a texel: its raw value, or (a float read) its value as a double.
uint32_t rawChannel(const TextureDesc& d, const uint8_t* texel, unsigned c) {
  switch (d.channelBits) {
    case 8:
      return texel[c];
    case 16: {
      uint16_t v;
      std::memcpy(&v, texel + 2 * c, 2);
      return v;
    }
    default: {
      uint32_t v;
      std::memcpy(&v, texel + 4 * c, 4);
      return v;
    }
  }
}

double floatChannel(const TextureDesc& d, const uint8_t* texel, unsigned c) {
  uint32_t raw = rawChannel(d, texel, c);
  if (d.kind == TexChannelKind::Float)
    return d.channelBits == 16 ? halfToDouble(static_cast<uint16_t>(raw)) : bitsFloat(raw);
  const unsigned n = d.channelBits;
  if (d.kind == TexChannelKind::Unsigned) {
    if (d.readMode == TexReadMode::ElementType) return raw;  // not reached: integer reads are not filtered
    return static_cast<double>(static_cast<float>(raw / static_cast<double>((uint64_t(1) << n) - 1)));
  }
  int64_t v = static_cast<int64_t>(raw) - ((raw >> (n - 1)) & 1 ? (int64_t(1) << n) : 0);
  if (d.readMode == TexReadMode::ElementType) return static_cast<double>(v);
  double q = v / static_cast<double>((int64_t(1) << (n - 1)) - 1);
  return static_cast<double>(static_cast<float>(q < -1 ? -1.0 : q));
}

// An integer read's 32-bit result: the channel sign- or zero-extended.
uint32_t intChannel(const TextureDesc& d, const uint8_t* texel, unsigned c) {
  uint32_t raw = rawChannel(d, texel, c);
  if (d.kind == TexChannelKind::Signed && d.channelBits < 32 && ((raw >> (d.channelBits - 1)) & 1))
    raw |= ~((uint32_t(1) << d.channelBits) - 1);
  return raw;
}

// A texel index along one dimension of `n` texels after the address mode; false: outside a
// border texture.
bool resolve(int64_t i, uint32_t n, TexAddressMode mode, int64_t& out) {
  const int64_t N = n;
  switch (mode) {
    case TexAddressMode::Border:
      if (i < 0 || i >= N) return false;
      out = i;
      return true;
    case TexAddressMode::Wrap:
      out = ((i % N) + N) % N;
      return true;
    case TexAddressMode::Mirror: {
      int64_t m = ((i % (2 * N)) + 2 * N) % (2 * N);
      out = m >= N ? 2 * N - 1 - m : m;
      return true;
    }
    case TexAddressMode::Clamp:
    default:
      out = i < 0 ? 0 : i >= N ? N - 1 : i;
      return true;
  }
}

// floor() of a coordinate as an index (NaN reads as 0; far values stay far without overflow).
int64_t floorIndex(double x) {
  if (std::isnan(x)) return 0;
  if (x < -1e15) return -1000000000000000ll;
  if (x > 1e15) return 1000000000000000ll;
  return static_cast<int64_t>(std::floor(x));
}

}  // namespace

// A cubemap fetch (the CUDA programming guide's cubemap table): the coordinate of largest
// magnitude m picks the face (x before y before z on ties), the other two give (s, t) on it, read
// as normalized coordinates (s/m + 1)/2, (t/m + 1)/2 of that face, a layer of a 2D layered
// texture, clamped at its edges (no filtering across faces). A zero or NaN direction reads the
// centre of face 0.
static void fetchCubemap(const TextureDesc& d, const uint8_t* texels, const uint32_t coords[3], int32_t cube, uint32_t out[4],
                  TexelsRead* read) {
  const float x = bitsFloat(coords[0]), y = bitsFloat(coords[1]), z = bitsFloat(coords[2]);
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  unsigned face;
  float m, s, t;
  if (ax >= ay && ax >= az) {
    m = ax, face = x >= 0 ? 0 : 1;
    s = x >= 0 ? -z : z, t = -y;
  } else if (ay >= az) {
    m = ay, face = y >= 0 ? 2 : 3;
    s = x, t = y >= 0 ? z : -z;
  } else {
    m = az, face = z >= 0 ? 4 : 5;
    s = z >= 0 ? x : -x, t = -y;
  }
  float u = 0.5f, v = 0.5f;
  if (m > 0 && !std::isnan(m)) {
    u = (s / m + 1.0f) * 0.5f;
    v = (t / m + 1.0f) * 0.5f;
  } else {
    face = 0;
  }
  TextureDesc f = d;
  f.cubemap = false;
  f.layered = true;
  f.normalizedCoords = true;
  f.addressMode[0] = f.addressMode[1] = TexAddressMode::Clamp;
  const int32_t cubes = static_cast<int32_t>(d.depth / 6);
  const int32_t c = d.layered ? std::clamp<int32_t>(cube, 0, cubes - 1) : 0;
  const uint32_t faceCoords[3] = {floatBits(u), floatBits(v), 0};
  fetchTexture(f, texels, false, faceCoords, c * 6 + static_cast<int32_t>(face), out, read);
}

void fetchTexture(const TextureDesc& d, const uint8_t* texels, bool intCoords, const uint32_t coords[3], int32_t layer,
                  uint32_t out[4], TexelsRead* read) {
  if (d.cubemap) return fetchCubemap(d, texels, coords, layer, out, read);
  const uint32_t extent[3] = {d.width, d.height, d.depth};
  const unsigned dims = d.dims;
  // Wrap and mirror need normalized coordinates; otherwise they act as clamp (as on the GPU).
  TexAddressMode mode[3];
  for (unsigned k = 0; k < 3; ++k) {
    mode[k] = d.addressMode[k];
    if ((intCoords || !d.normalizedCoords) && (mode[k] == TexAddressMode::Wrap || mode[k] == TexAddressMode::Mirror))
      mode[k] = TexAddressMode::Clamp;
  }
  const bool linear = d.filter == TexFilter::Linear && !intCoords && d.readsFloat();
  int64_t base[3] = {0, 0, 0};
  double alpha[3] = {0, 0, 0};  // weights of the upper texel: multiples of 1/256 in [0, 1]
  for (unsigned k = 0; k < dims; ++k) {
    if (intCoords) {
      base[k] = static_cast<int32_t>(coords[k]);
      continue;
    }
    float x = bitsFloat(coords[k]);
    if (d.normalizedCoords) x = x * static_cast<float>(extent[k]);
    if (!linear) {
      base[k] = floorIndex(x);
      continue;
    }
    float xb = x - 0.5f;
    base[k] = floorIndex(xb);
    double frac = std::isnan(xb) ? 0.0 : static_cast<double>(xb) - static_cast<double>(base[k]);
    if (frac < 0 || frac > 1) frac = 0;                 // coordinates beyond floorIndex's range
    alpha[k] = std::floor(frac * 256.0 + 0.5) / 256.0;  // 9-bit fixed point, 8 fraction bits
  }
  // The layer: clamped to the layers there are (height of a 1D layered texture, depth of 2D).
  int64_t layerIndex = 0;
  if (d.layered) {
    const int64_t layers = dims == 1 ? d.height : d.depth;
    layerIndex = layer < 0 ? 0 : layer >= layers ? layers - 1 : layer;
  }
  const uint64_t texelBytes = d.texelBytes(), row = d.rowPitch(), slice = d.slicePitch();
  // The texel at offsets (ox, oy, oz) from `base`, or nullptr outside a border texture.
  auto texelAt = [&](const unsigned* off) -> const uint8_t* {
    int64_t idx[3] = {0, 0, 0};
    for (unsigned k = 0; k < dims; ++k)
      if (!resolve(base[k] + off[k], extent[k], mode[k], idx[k])) return nullptr;
    if (d.layered) idx[dims] = layerIndex;
    const uint64_t offset = static_cast<uint64_t>(idx[0]) * texelBytes + static_cast<uint64_t>(idx[1]) * row +
                            static_cast<uint64_t>(idx[2]) * slice;
    if (read) read->add(offset);
    return texels + offset;
  };
  const unsigned present = d.channels;
  if (!d.readsFloat()) {
    const unsigned zero[3] = {0, 0, 0};
    const uint8_t* t = texelAt(zero);
    for (unsigned c = 0; c < 4; ++c)
      out[c] = c < present ? (t ? intChannel(d, t, c) : d.borderColor[c]) : (c == 3 ? 1u : 0u);
    return;
  }
  if (!linear) {  // one texel, its values as they are (f32 bits kept: -0.0, NaN payloads)
    const unsigned zero[3] = {0, 0, 0};
    const uint8_t* t = texelAt(zero);
    for (unsigned c = 0; c < 4; ++c) {
      if (c >= present)
        out[c] = floatBits(c == 3 ? 1.0f : 0.0f);
      else if (!t)
        out[c] = d.borderColor[c];
      else if (d.kind == TexChannelKind::Float && d.channelBits == 32)
        out[c] = rawChannel(d, t, c);
      else
        out[c] = floatBits(static_cast<float>(floatChannel(d, t, c)));
    }
    return;
  }
  double sum[4] = {0, 0, 0, 0};
  const unsigned taps = 1u << dims;
  for (unsigned tap = 0; tap < taps; ++tap) {
    unsigned off[3] = {0, 0, 0};
    double w = 1;
    for (unsigned k = 0; k < dims; ++k) {
      off[k] = (tap >> k) & 1;
      w *= off[k] ? alpha[k] : 1 - alpha[k];
    }
    if (w == 0) continue;
    const uint8_t* t = texelAt(off);
    for (unsigned c = 0; c < present; ++c)
      sum[c] += w * (t ? floatChannel(d, t, c) : static_cast<double>(bitsFloat(d.borderColor[c])));
  }
  for (unsigned c = 0; c < 4; ++c)
    out[c] = c < present ? floatBits(static_cast<float>(sum[c])) : floatBits(c == 3 ? 1.0f : 0.0f);
}

void gatherTexture(const TextureDesc& d, const uint8_t* texels, const uint32_t coords[2], int32_t layer, unsigned comp,
                   uint32_t out[4], TexelsRead* read) {
  const uint32_t extent[2] = {d.width, d.height};
  int64_t base[2];
  TexAddressMode mode[2];
  for (unsigned k = 0; k < 2; ++k) {
    mode[k] = d.addressMode[k];
    if (!d.normalizedCoords && (mode[k] == TexAddressMode::Wrap || mode[k] == TexAddressMode::Mirror))
      mode[k] = TexAddressMode::Clamp;
    float x = bitsFloat(coords[k]);
    if (d.normalizedCoords) x = x * static_cast<float>(extent[k]);
    base[k] = floorIndex(x - 0.5f);
  }
  int64_t layerIndex = 0;
  if (d.layered) layerIndex = layer < 0 ? 0 : layer >= int64_t(d.depth) ? int64_t(d.depth) - 1 : layer;
  const int offsets[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  for (unsigned t = 0; t < 4; ++t) {
    if (comp >= d.channels) {
      out[t] = comp == 3 ? (d.readsFloat() ? floatBits(1.0f) : 1u) : 0u;
      continue;
    }
    int64_t i, j;
    if (!resolve(base[0] + offsets[t][0], extent[0], mode[0], i) || !resolve(base[1] + offsets[t][1], extent[1], mode[1], j)) {
      out[t] = d.borderColor[comp];
      continue;
    }
    const uint64_t offset = static_cast<uint64_t>(i) * d.texelBytes() + static_cast<uint64_t>(j) * d.rowPitch() +
                            static_cast<uint64_t>(layerIndex) * d.slicePitch();
    if (read) read->add(offset);
    const uint8_t* texel = texels + offset;
    if (!d.readsFloat()) out[t] = intChannel(d, texel, comp);
    else if (d.kind == TexChannelKind::Float && d.channelBits == 32) out[t] = rawChannel(d, texel, comp);
    else out[t] = floatBits(static_cast<float>(floatChannel(d, texel, comp)));
  }
}

namespace {

const char* const kQueryNames[] = {"width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
                                   "array_size", "num_mipmap_levels", "num_samples", "force_unnormalized_coords",
                                   "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "memory_layout"};

}  // namespace

const char* texQueryName(TexQuery q) { return kQueryNames[static_cast<unsigned>(q)]; }

bool texQueryOf(std::string_view name, TexQuery& q) {
  for (unsigned k = 0; k < std::size(kQueryNames); ++k)
    if (name == kQueryNames[k]) {
      q = static_cast<TexQuery>(k);
      return true;
    }
  return false;
}

uint32_t queryTexture(const TextureDesc& d, TexQuery q, int32_t level) {
  // The extent of a dimension at mipmap level `level`: halved per level, at least 1 (a texture
  // here has one level; deeper levels read as a mipmap chain's would be).
  auto atLevel = [&](uint32_t n) { return level <= 0 ? n : level >= 32 ? 1u : std::max<uint32_t>(1, n >> level); };
  const bool cube = d.cubemap;
  switch (q) {
    case TexQuery::Width: return atLevel(d.width);
    // A 1D texture is one row, a 2D one a single slice; a layered texture's layers are its
    // array_size, not an extent (they are stored where the next dimension would be).
    case TexQuery::Height: return d.dims >= 2 || cube ? atLevel(d.height) : 1;
    case TexQuery::Depth: return d.dims == 3 ? atLevel(d.depth) : 1;
    case TexQuery::ChannelDataType: return static_cast<uint32_t>(d.kind);  // cudaChannelFormatKind
    case TexQuery::ChannelOrder: return d.channels;
    case TexQuery::NormalizedCoords: return d.normalizedCoords ? 1 : 0;
    case TexQuery::ArraySize:
      if (!d.layered) return 0;
      if (cube) return d.depth / 6;
      return d.dims == 1 ? d.height : d.depth;
    case TexQuery::NumMipmapLevels: return 0;
    case TexQuery::NumSamples: return 0;
    case TexQuery::ForceUnnormalizedCoords: return 0;
    case TexQuery::FilterMode: return d.filter == TexFilter::Linear ? 1 : 0;
    case TexQuery::AddrMode0:
    case TexQuery::AddrMode1:
    case TexQuery::AddrMode2: {
      // The PTX ISA's order: wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border.
      switch (d.addressMode[static_cast<unsigned>(q) - static_cast<unsigned>(TexQuery::AddrMode0)]) {
        case TexAddressMode::Wrap: return 0;
        case TexAddressMode::Mirror: return 1;
        case TexAddressMode::Clamp: return 3;
        case TexAddressMode::Border: return 4;
      }
      return 3;
    }
    case TexQuery::MemoryLayout: return d.resource == TexResource::Array ? 0 : 1;
  }
  return 0;
}

}  // namespace ptxopt::emu
