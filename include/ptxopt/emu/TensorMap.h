// Tensor maps (CUtensorMap): the 128-byte descriptor that cp.async.bulk.tensor reads. The GPU's
// layout is not documented; this emulator's is its own (docs/EMULATOR.md, "Tensor maps"), and
// a launch spec's "tensormap" parameter writes one.
//
//   bytes   0-7    "ptxTMAP1"
//   bytes   8-15   the global address of element (0, ..., 0)
//   byte   16      rank, 1 to 5;  byte 17: bytes per element (1, 2, 4, 8)
//   bytes  24-63   dims[5], u64: elements per dimension, innermost first
//   bytes  64-95   strides[4], u64: bytes between consecutive indices of dimensions 1 to 4
//   bytes  96-115  box[5], u32: elements per dimension of the box one copy moves
//   byte  18       the element type plus 1 (0: not recorded), in the numbering of
//                  tensormap.replace's .elemtype (u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16
//                  tf32 tf32.ftz: 0 to 12; CUtensorMapDataType orders f64, bf16, f32.ftz
//                  differently)
//   bytes 19-22    interleave layout, swizzle mode, swizzle atomicity, fill mode (the numbering
//                  of tensormap.replace; 0 is none, none, 16 bytes, zeros)
//   bytes 118-122  elementStrides[5], u8, minus 1 (0: stride 1)
//   the rest       zero
// tensormap.replace edits these fields in place (replaceTensorMapField).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace ptxopt::emu {

constexpr uint64_t kTensorMapBytes = 128;

struct TensorMapDesc {
  uint64_t base = 0;
  uint32_t rank = 0;
  uint32_t elemBytes = 0;
  std::array<uint64_t, 5> dims{};
  std::array<uint64_t, 4> strides{};
  std::array<uint32_t, 5> box{};
  int elemType = -1;  // tensormap.replace's numbering; -1: not recorded (a launch spec's map)
  uint8_t interleave = 0, swizzle = 0, swizzleAtomicity = 0, fill = 0;
  std::array<uint32_t, 5> elementStrides{1, 1, 1, 1, 1};
  // Bytes one copy moves: the box's elements times the element size.
  uint64_t boxBytes() const;
};

// Bytes per element of element type `t` (tensormap.replace's .elemtype numbering): 0 to 12 (u8
// ... tf32.ftz); 0 for the sub-byte types and anything else.
uint32_t tensorMapElemBytes(int t);

// The fields tensormap.replace.tile replaces.
enum class TensorMapField : uint8_t {
  GlobalAddress, Rank, BoxDim, GlobalDim, GlobalStride, ElementStride, ElemType, InterleaveLayout, SwizzleMode,
  SwizzleAtomicity, FillMode,
};
const char* tensorMapFieldName(TensorMapField f);  // "global_address"
// Replaces field `f` (dimension `ord` of the per-dimension ones) of the map in `bytes` with
// `value` as the PTX ISA encodes it (.rank is the rank minus 1). Empty when done; otherwise why
// not (the bytes hold no tensor map, an ordinal beyond 4, an element type not emulated). The map
// is not checked here: a copy checks the map it reads.
std::string replaceTensorMapField(uint8_t bytes[kTensorMapBytes], TensorMapField f, uint32_t ord, uint64_t value);

void encodeTensorMap(const TensorMapDesc& d, uint8_t out[kTensorMapBytes]);
// False when the bytes do not hold a tensor map of this layout (or one with a bad rank or
// element size).
bool decodeTensorMap(const uint8_t in[kTensorMapBytes], TensorMapDesc& d, std::string* why = nullptr);
// What CUDA's cuTensorMapEncodeTiled checks of a tiled map, as a message; empty when it fits:
// rank 1 to 5, dims 1 to 2^32, strides multiples of 16 below 2^40, box sizes 1 to 256 with the
// innermost box a multiple of 16 bytes, base 16-byte aligned.
std::string checkTensorMap(const TensorMapDesc& d);

}  // namespace ptxopt::emu
