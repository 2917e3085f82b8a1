// Tensor maps: this emulator's 128-byte layout (include/ptxopt/emu/TensorMap.h).
#include "ptxopt/emu/TensorMap.h"

#include <cstring>

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
}

bool decodeTensorMap(const uint8_t in[kTensorMapBytes], TensorMapDesc& d) {
  if (std::memcmp(in, kMagic, 8) != 0) return false;
  std::memcpy(&d.base, in + 8, 8);
  d.rank = in[16];
  d.elemBytes = in[17];
  std::memcpy(d.dims.data(), in + 24, 40);
  std::memcpy(d.strides.data(), in + 64, 32);
  std::memcpy(d.box.data(), in + 96, 20);
  // A map the kernel wrote or copied gets the checks a spec's map does.
  const bool element = d.elemBytes == 1 || d.elemBytes == 2 || d.elemBytes == 4 || d.elemBytes == 8;
  return element && checkTensorMap(d).empty();
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
