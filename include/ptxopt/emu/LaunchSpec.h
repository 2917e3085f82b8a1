// Launch specifications: which kernel, grid and block shape, dynamic shared memory, and each
// parameter (a buffer the emulator owns, a scalar, or raw bytes). Read from JSON:
//
//   {"kernel": "reduce", "grid": [8,1,1], "block": [256,1,1], "dynamic_shared_bytes": 0,
//    "params": [
//      {"name": "in",  "buffer": {"type": "f32", "count": 2048,
//                                 "init": {"random": {"seed": 7, "min": -1.0, "max": 1.0}}}},
//      {"name": "out", "buffer": {"type": "f32", "count": 8, "init": "zero"}},
//      {"name": "n",   "value": 2048, "type": "s32"},
//      {"name": "s",   "bytes": [0, 0, 32, 64]},
//      {"name": "t",   "texture": {"type": "f32", "channels": 1, "extent": [4, 2], "init": "iota",
//                                  "filter": "linear", "address": ["wrap", "clamp"],
//                                  "normalized_coords": true}}]}
//
// Initializers: "zero", "iota", {"fill": V}, {"values": [...]}, {"random": {...}}, {"file": F}.
// Numbers may also be written as strings: "nan", "inf", "-inf", "-0.0", or "0x..." for a raw bit
// pattern of the element type.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ptxopt/emu/Texture.h"

namespace ptxopt::emu {

enum class ElemType : uint8_t { S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64 };
unsigned elemBytes(ElemType t);
const char* elemTypeName(ElemType t);
bool parseElemType(const std::string& name, ElemType& out);
bool isFloatElem(ElemType t);

// A number from a spec, kept exactly: integers as 64-bit two's complement with a sign flag,
// floats as double, special forms as raw bits.
struct SpecNumber {
  enum class Kind : uint8_t { Int, UInt, Float, RawBits } kind = Kind::Int;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
};

struct BufferInit {
  enum class Kind : uint8_t { Zero, Iota, Fill, Values, Random, File } kind = Kind::Zero;
  SpecNumber fill;
  std::vector<SpecNumber> values;
  uint64_t seed = 0;
  SpecNumber min, max;
  std::string file;  // resolved against the spec's directory
};

// A tensor map over a buffer parameter of the launch (docs/EMULATOR.md, "Tensor maps"): the
// parameter, 128 bytes (a __grid_constant__ CUtensorMap), receives the descriptor.
struct TensorMapSpec {
  std::string buffer;                 // the buffer parameter's name; its element type is the map's
  uint32_t rank = 0;                  // 1 to 5
  std::array<uint64_t, 5> dims{};     // elements per dimension, innermost first
  std::array<uint64_t, 4> strides{};  // bytes between consecutive indices of dimensions 1 to rank-1
  std::array<uint32_t, 5> box{};      // elements per dimension of the box one copy moves
};

struct ParamSpec {
  enum class Kind : uint8_t { Buffer, Scalar, Bytes, Texture, TensorMap } kind = Kind::Scalar;
  std::string name;
  ElemType type = ElemType::S32;  // element type of a buffer (a texture's channels), type of a scalar
  uint64_t count = 0;             // buffer elements (a texture's: channels per texel times texels)
  BufferInit init;
  // A texture object (the parameter receives its handle): format, extent and sampler; the texels
  // are a device allocation of the launch, `init` written texel by texel, row by row (`base` is
  // set at launch). A surface (`texture.surface`) is one too; its texels are a result, as a
  // buffer's elements are.
  TextureDesc texture;
  SpecNumber value;               // scalar
  std::vector<uint8_t> bytes;     // raw parameter bytes (structs passed by value)
  TensorMapSpec tensorMap;
};

struct LaunchSpec {
  std::string path;    // where it was read from (for messages)
  std::string kernel;  // empty: the module's only entry
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
  std::vector<ParamSpec> params;
};

// Parses `text`. On failure returns false and sets `error` to "PATH: field: what is wrong".
bool parseLaunchSpec(const std::string& text, const std::string& path, LaunchSpec& spec, std::string& error);
bool loadLaunchSpec(const std::string& path, LaunchSpec& spec, std::string& error);
// The spec as JSON that parseLaunchSpec reads back to an equal spec (the comment is not kept).
std::string launchSpecToJson(const LaunchSpec& spec);

// Encodes one number as an element of type `t` (little-endian) into `out`; fails when it does
// not fit (integers out of range, non-integral values for integer types).
bool encodeNumber(const SpecNumber& n, ElemType t, uint8_t* out, std::string& error);

// The initial contents of a buffer parameter, count * elemBytes(type) bytes.
bool initialBufferContents(const ParamSpec& p, std::vector<uint8_t>& out, std::string& error);

// The portable generator behind {"random": ...}: SplitMix64 from `seed`; element k takes the
// (k+1)-th output z. Integers: min + z mod (max - min + 1). Floats: min + (max - min) * u with
// u = (z >> 11) * 2^-53 computed in double, then rounded to the element type to nearest even.
uint64_t splitmix64Next(uint64_t& state);

}  // namespace ptxopt::emu
