// Tensor maps: this emulator's 128-byte layout (include/ptxopt/emu/TensorMap.h).
#include "ptxopt/emu/TensorMap.h"

#include <cstring>
#include <iterator>

namespace ptxopt::emu {

namespace {
constexpr char kMagic[8] = {'p', 't', 'x', 'T', 'M', 'A', 'P', '1'};
}

uint64_t TensorMapDesc::boxBytes() const {
  uint64_t n = elemBytes;
  for (uint32_t k = 0; k < rank && k < 5; ++k) n *= box[k];
  return n;
}

void encodeTensorMap(const TensorMapDesc& d, uint8_t out[kTensorMapBytes]) {
  std::memset(out, 0, kTensorMapBytes);
  std::memcpy(out, kMagic, 8);
  std::memcpy(out + 8, &d.base, 8);
  out[16] = static_cast<uint8_t>(d.rank);
  out[17] = static_cast<uint8_t>(d.elemBytes);
  std::memcpy(out + 24, d.dims.data(), 40);
  std::memcpy(out + 64, d.strides.data(), 32);
  std::memcpy(out + 96, d.box.data(), 20);
  out[18] = static_cast<uint8_t>(d.elemType + 1);
  out[19] = d.interleave, out[20] = d.swizzle, out[21] = d.swizzleAtomicity, out[22] = d.fill;
  for (unsigned k = 0; k < 5; ++k) out[118 + k] = static_cast<uint8_t>(d.elementStrides[k] - 1);
}

uint32_t tensorMapElemBytes(int t) {
  static const uint32_t kElemBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4};
  return t >= 0 && t < static_cast<int>(std::size(kElemBytes)) ? kElemBytes[t] : 0;
}

const char* tensorMapFieldName(TensorMapField f) {
  static const char* const kNames[] = {"global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
                                       "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode"};
  return kNames[static_cast<unsigned>(f)];
}

std::string replaceTensorMapField(uint8_t b[kTensorMapBytes], TensorMapField f, uint32_t ord, uint64_t value) {
  if (std::memcmp(b, kMagic, 8) != 0) return "the 128 bytes do not hold a tensor map";
  const bool perDim = f == TensorMapField::BoxDim || f == TensorMapField::GlobalDim || f == TensorMapField::GlobalStride ||
                      f == TensorMapField::ElementStride;
  if (perDim && ord > (f == TensorMapField::GlobalStride ? 3u : 4u))
    return "dimension " + std::to_string(ord) + " (ord) is not 0 to " + (f == TensorMapField::GlobalStride ? "3" : "4");
  const uint32_t v32 = static_cast<uint32_t>(value);
  switch (f) {
    case TensorMapField::GlobalAddress: std::memcpy(b + 8, &value, 8); break;
    case TensorMapField::Rank:
      if (v32 > 4) return "rank " + std::to_string(uint64_t(v32) + 1) + " (new_val " + std::to_string(v32) + ") is not 1 to 5";
      b[16] = static_cast<uint8_t>(v32 + 1);
      break;
    case TensorMapField::BoxDim: std::memcpy(b + 96 + 4 * ord, &v32, 4); break;
    case TensorMapField::GlobalDim: {
      const uint64_t dim = v32;
      std::memcpy(b + 24 + 8 * ord, &dim, 8);
      break;
    }
    case TensorMapField::GlobalStride: std::memcpy(b + 64 + 8 * ord, &value, 8); break;
    case TensorMapField::ElementStride:
      if (v32 < 1 || v32 > 8) return "an element stride of " + std::to_string(v32) + " (1 to 8)";
      b[118 + ord] = static_cast<uint8_t>(v32 - 1);
      break;
    case TensorMapField::ElemType: {
      const uint32_t bytes = tensorMapElemBytes(static_cast<int>(v32));
      if (!bytes) return "element type " + std::to_string(v32) + " (the packed sub-byte types are not emulated)";
      b[17] = static_cast<uint8_t>(bytes);
      b[18] = static_cast<uint8_t>(v32 + 1);
      break;
    }
    case TensorMapField::InterleaveLayout: b[19] = static_cast<uint8_t>(v32); break;
    case TensorMapField::SwizzleMode: b[20] = static_cast<uint8_t>(v32); break;
    case TensorMapField::SwizzleAtomicity: b[21] = static_cast<uint8_t>(v32); break;
    case TensorMapField::FillMode: b[22] = static_cast<uint8_t>(v32); break;
  }
  return "";
}

bool decodeTensorMap(const uint8_t in[kTensorMapBytes], TensorMapDesc& d, std::string* why) {
  if (std::memcmp(in, kMagic, 8) != 0) {
    if (why) *why = "the bytes do not hold a tensor map";
    return false;
  }
  std::memcpy(&d.base, in + 8, 8);
  d.rank = in[16];
  d.elemBytes = in[17];
  std::memcpy(d.dims.data(), in + 24, 40);
  std::memcpy(d.strides.data(), in + 64, 32);
  std::memcpy(d.box.data(), in + 96, 20);
  d.elemType = static_cast<int>(in[18]) - 1;
  d.interleave = in[19], d.swizzle = in[20], d.swizzleAtomicity = in[21], d.fill = in[22];
  for (unsigned k = 0; k < 5; ++k) d.elementStrides[k] = uint32_t(in[118 + k]) + 1;
  // A map the kernel wrote or copied gets the checks a spec's map does.
  const bool element = d.elemBytes == 1 || d.elemBytes == 2 || d.elemBytes == 4 || d.elemBytes == 8;
  std::string problem = element ? checkTensorMap(d) : std::to_string(d.elemBytes) + "-byte elements";
  if (why) *why = problem;
  return problem.empty();
}

std::string checkTensorMap(const TensorMapDesc& d) {
  if (d.rank < 1 || d.rank > 5) return "rank " + std::to_string(d.rank) + " is not 1 to 5";
  if (d.base % 16) return "the buffer is not 16-byte aligned";
  for (uint32_t k = 0; k < d.rank; ++k) {
    const std::string dim = "dimension " + std::to_string(k);
    if (d.dims[k] < 1 || d.dims[k] > (uint64_t(1) << 32)) return dim + ": " + std::to_string(d.dims[k]) + " elements is not 1 to 2^32";
    if (d.box[k] < 1 || d.box[k] > 256) return dim + ": a box of " + std::to_string(d.box[k]) + " elements is not 1 to 256";
    if (k == 0) continue;
    const uint64_t s = d.strides[k - 1];
    if (s % 16 || s >= (uint64_t(1) << 40)) return dim + ": stride " + std::to_string(s) + " is not a multiple of 16 below 2^40";
  }
  if (d.box[0] * d.elemBytes % 16) return "the innermost box (" + std::to_string(d.box[0] * d.elemBytes) + " bytes) is not a multiple of 16 bytes";
  return "";
}

}  // namespace ptxopt::emu
