// Texture objects (issue #34): what a texture handle stands for, and how `tex` reads it. The
// runtime stand-in (cudaCreateTextureObject) and launch specs ({"texture": ...}) both describe a
// texture with a TextureDesc; a GlobalMemory (a Device's, or a ptxrun launch's own) keeps a
// table of them and hands out handles, which kernels receive as .u64 values. The rules of a
// fetch (addressing, filtering, read modes) are in docs/EMULATOR.md, "Textures".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ptxopt::emu {

// The numbering of CUDA's cudaChannelFormatKind, cudaTextureAddressMode, cudaTextureFilterMode,
// cudaTextureReadMode.
enum class TexChannelKind : uint8_t { Signed = 0, Unsigned = 1, Float = 2 };
enum class TexAddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };
enum class TexFilter : uint8_t { Point = 0, Linear = 1 };
enum class TexReadMode : uint8_t { ElementType = 0, NormalizedFloat = 1 };
// Where the texels lie: a 1D range of linear memory (tex1Dfetch), a 2D range with a row pitch,
// or an array (rows of `width` texels, then slices of `height` rows, packed).
enum class TexResource : uint8_t { Linear, Pitch2D, Array };

struct TextureDesc {
  TexResource resource = TexResource::Array;
  uint64_t base = 0;  // device address of texel (0, 0, 0)
  // Texels per dimension; `dims` of them are coordinates (1, 2 or 3). A layered texture has one
  // more, the layer: `height` layers of a 1D texture, `depth` layers of a 2D one.
  uint32_t width = 1, height = 1, depth = 1;
  uint8_t dims = 1;
  bool layered = false;
  // A cubemap: dims 2, six square faces of width x width texels stored as the layers of a 2D
  // layered texture (depth 6, or 6 per cubemap of a layered cubemap, whose `layered` is set).
  bool cubemap = false;
  uint64_t pitch = 0;  // bytes from one row to the next (0: width * texelBytes())
  // Texel format: 1, 2 or 4 channels of 8, 16 or 32 bits (float: 16 or 32).
  uint8_t channels = 1;
  uint8_t channelBits = 32;
  TexChannelKind kind = TexChannelKind::Float;
  // Sampler.
  TexAddressMode addressMode[3] = {TexAddressMode::Clamp, TexAddressMode::Clamp, TexAddressMode::Clamp};
  TexFilter filter = TexFilter::Point;
  TexReadMode readMode = TexReadMode::ElementType;
  bool normalizedCoords = false;
  uint32_t borderColor[4] = {0, 0, 0, 0};
  // A surface object (suld/sust read and write its texels as bytes; the sampler is unused), not
  // a texture.
  bool surface = false;  // the 32-bit result of each channel outside a border texture

  uint64_t texelBytes() const { return uint64_t(channels) * channelBits / 8; }
  uint64_t rowPitch() const { return pitch ? pitch : uint64_t(width) * texelBytes(); }
  uint64_t slicePitch() const { return rowPitch() * height; }
  // The bytes from `base` that the texels span.
  uint64_t spanBytes() const {
    return uint64_t(depth - 1) * slicePitch() + uint64_t(height - 1) * rowPitch() + uint64_t(width) * texelBytes();
  }
  // Whether a fetch returns floats (float texels, or normalized-float reads of integers).
  bool readsFloat() const { return kind == TexChannelKind::Float || readMode == TexReadMode::NormalizedFloat; }
};

// What makes `d` unusable ("linear filtering needs a texture that reads as float", ...); empty
// when it is fine. The memory it names is not checked here.
std::string checkTexture(const TextureDesc& d);
// For messages: "2D f32x1 array 64x32".
std::string describeTexture(const TextureDesc& d);

// The texels a fetch or gather read, as byte offsets from the texture's base (for the race
// checker): up to 8 (a linear 3D fetch).
struct TexelsRead {
  uint64_t offset[8] = {};
  unsigned count = 0;
  void add(uint64_t o) {
    if (count < 8) offset[count++] = o;
  }
};

// One fetch. `coords`: the instruction's coordinates (f32 bits, or s32 when `intCoords`), x, y,
// z in the texture's `dims`, after the layer index `layer` of a layered texture. A cubemap's are
// a direction (x, y, z, f32) and `layer` the index of the cubemap in a layered cubemap. `texels`: the
// host bytes at `base` (spanBytes() of them). Writes the four 32-bit result components.
void fetchTexture(const TextureDesc& d, const uint8_t* texels, bool intCoords, const uint32_t coords[3], int32_t layer,
                  uint32_t out[4], TexelsRead* read = nullptr);

// tld4 (tex2Dgather): channel `comp` (0-3) of the four texels linear filtering of a 2D texture
// would weigh at (x, y), in the PTX order: counter-clockwise from the lower left, (i, j+1),
// (i+1, j+1), (i+1, j), (i, j).
void gatherTexture(const TextureDesc& d, const uint8_t* texels, const uint32_t coords[2], int32_t layer, unsigned comp,
                   uint32_t out[4], TexelsRead* read = nullptr);

// The attributes txq (textures) and suq (surfaces) read (docs/EMULATOR.md, "Texture and surface
// queries" has the values).
enum class TexQuery : uint8_t {
  Width, Height, Depth, ChannelDataType, ChannelOrder, NormalizedCoords, ArraySize, NumMipmapLevels, NumSamples,
  ForceUnnormalizedCoords, FilterMode, AddrMode0, AddrMode1, AddrMode2, MemoryLayout,
};
// The query's name without its dot ("width"), and the query a name stands for (false: none).
const char* texQueryName(TexQuery q);
bool texQueryOf(std::string_view name, TexQuery& q);
// txq/suq's result for `d`; `level` (txq.level) is the mipmap level whose extent is asked, 0 for
// the forms without one.
uint32_t queryTexture(const TextureDesc& d, TexQuery q, int32_t level = 0);

}  // namespace ptxopt::emu
