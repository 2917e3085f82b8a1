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
//   the rest       zero
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
  // Bytes one copy moves: the box's elements times the element size.
  uint64_t boxBytes() const;
};

void encodeTensorMap(const TensorMapDesc& d, uint8_t out[kTensorMapBytes]);
// False when the bytes do not hold a tensor map of this layout (or one with a bad rank or
// element size).
bool decodeTensorMap(const uint8_t in[kTensorMapBytes], TensorMapDesc& d);
// What CUDA's cuTensorMapEncodeTiled checks of a tiled map, as a message; empty when it fits:
// rank 1 to 5, dims 1 to 2^32, strides multiples of 16 below 2^40, box sizes 1 to 256 with the
// innermost box a multiple of 16 bytes, base 16-byte aligned.
std::string checkTensorMap(const TensorMapDesc& d);

}  // namespace ptxopt::emu
