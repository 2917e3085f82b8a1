// tests/kernels/texture_sampling.cu: five f32 textures sampled under each variant's sampler, and
// a surface written by a grid of threads. The sampling below follows the rules docs/EMULATOR.md
// states ("Textures"), written apart from the emulator's code:
//  * normalized coordinates are multiplied by the extent (in f32);
//  * point filtering reads texel floor(x); linear filtering reads texels i and i + 1 around
//    x - 0.5 (per dimension) with the upper texel's weight the fraction rounded to a multiple of
//    1/256, the weighted sum taken in double over the 2^dims texels with the offset of dimension
//    k in bit k of the texel's number, rounded to f32 once;
//  * a texel index outside the extent: clamp takes the nearest, border the border colour, wrap
//    the index modulo the extent and mirror the index reflected at each edge (the last two only
//    with normalized coordinates; otherwise they clamp);
//  * a layer index is clamped to the layers there are.
#include <cmath>

#include "RefUtil.h"

using namespace ptxopt::ref;
using ptxopt::emu::TexAddressMode;
using ptxopt::emu::TextureDesc;

namespace {

struct Sampler {
  const TextureDesc& d;
  std::span<const float> texels;

  // The texel index for `i` in a dimension of `n` texels, or false for the border.
  bool resolve(int64_t i, int64_t n, TexAddressMode mode, int64_t& out) const {
    if (!d.normalizedCoords && (mode == TexAddressMode::Wrap || mode == TexAddressMode::Mirror)) mode = TexAddressMode::Clamp;
    switch (mode) {
      case TexAddressMode::Clamp: out = std::clamp<int64_t>(i, 0, n - 1); return true;
      case TexAddressMode::Border: out = i; return i >= 0 && i < n;
      case TexAddressMode::Wrap: out = ((i % n) + n) % n; return true;
      case TexAddressMode::Mirror: {
        const int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        out = m < n ? m : 2 * n - 1 - m;
        return true;
      }
    }
    return false;
  }

  double texel(const int64_t* idx, int64_t layer) const {
    const int64_t extent[3] = {d.width, d.height, d.depth};
    int64_t at[3] = {0, 0, 0};
    for (unsigned k = 0; k < d.dims; ++k)
      if (!resolve(idx[k], extent[k], d.addressMode[k], at[k])) return static_cast<double>(ptxopt::bitsFloat(d.borderColor[0]));
    if (d.layered) at[d.dims] = layer;
    return static_cast<double>(texels[static_cast<size_t>(at[0] + at[1] * d.width + at[2] * int64_t(d.width) * d.height)]);
  }

  float sample(const float* coords, int32_t layer) const {
    const int64_t extent[3] = {d.width, d.height, d.depth};
    const int64_t layers = d.dims == 1 ? d.height : d.depth;
    const int64_t l = d.layered ? std::clamp<int64_t>(layer, 0, layers - 1) : 0;
    int64_t base[3] = {0, 0, 0};
    double upper[3] = {0, 0, 0};
    const bool linear = d.filter == ptxopt::emu::TexFilter::Linear;
    for (unsigned k = 0; k < d.dims; ++k) {
      float x = coords[k];
      if (d.normalizedCoords) x = x * static_cast<float>(extent[k]);
      if (!linear) {
        base[k] = static_cast<int64_t>(std::floor(x));
        continue;
      }
      const float xb = x - 0.5f;
      base[k] = static_cast<int64_t>(std::floor(xb));
      upper[k] = std::floor((static_cast<double>(xb) - static_cast<double>(base[k])) * 256.0 + 0.5) / 256.0;
    }
    if (!linear) return static_cast<float>(texel(base, l));
    double sum = 0;
    for (unsigned n = 0; n < (1u << d.dims); ++n) {
      int64_t idx[3] = {base[0], base[1], base[2]};
      double w = 1;
      for (unsigned k = 0; k < d.dims; ++k) {
        const bool up = (n >> k) & 1;
        idx[k] += up;
        w *= up ? upper[k] : 1 - upper[k];
      }
      if (w != 0) sum += w * texel(idx, l);
    }
    return static_cast<float>(sum);
  }
};

void textureSampling(RefLaunch& L) {
  auto coords = buffer<float>(L, "coords");
  auto out = buffer<float>(L, "out");
  auto sampler = [&](const char* name) { return Sampler{L.param(name).texture, L.buf<float>(name)}; };
  const Sampler t1 = sampler("t1"), t2 = sampler("t2"), t3 = sampler("t3"), l1 = sampler("l1"), l2 = sampler("l2");
  forEachThread(L, [&](const Thread& th) {
    const int32_t t = static_cast<int32_t>(th.bx * th.ntx + th.tx);
    const float c[3] = {coords[3 * t], coords[3 * t + 1], coords[3 * t + 2]};
    const float swapped[2] = {c[1], c[0]};
    out[6 * t + 0] = t1.sample(c, 0);
    out[6 * t + 1] = t2.sample(c, 0);
    out[6 * t + 2] = t3.sample(c, 0);
    out[6 * t + 3] = l1.sample(c, t % 3);
    out[6 * t + 4] = l2.sample(c, t % 2);
    out[6 * t + 5] = t2.sample(swapped, 0);
  });
}

}  // namespace

PTXOPT_REFERENCE("texture_sampling.point_clamp") { textureSampling(L); }
PTXOPT_REFERENCE("texture_sampling.linear_clamp") { textureSampling(L); }
PTXOPT_REFERENCE("texture_sampling.linear_wrap") { textureSampling(L); }
PTXOPT_REFERENCE("texture_sampling.point_mirror") { textureSampling(L); }
PTXOPT_REFERENCE("texture_sampling.linear_border") { textureSampling(L); }

// surface_write: texel (x, y) of the 13x3 surface becomes x + 100 y; the rest keeps its fill.
PTXOPT_REFERENCE("texture_sampling.surface") {
  auto s = L.buf<int32_t>("s");
  const int32_t width = L.scalar<int32_t>("width"), height = L.scalar<int32_t>("height");
  forEachThread(L, [&](const Thread& th) {
    const int32_t x = static_cast<int32_t>(th.bx * th.ntx + th.tx), y = static_cast<int32_t>(th.by * th.nty + th.ty);
    if (x < width && y < height) s[static_cast<size_t>(x + width * y)] = x + 100 * y;
  });
}
