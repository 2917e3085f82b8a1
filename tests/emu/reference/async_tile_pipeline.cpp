// tests/kernels/async_tile_pipeline.cu: tile k of CTA b holds in[base + k*256 + i] for i < 256
// (base = b * tiles * 256), zero where that index is n or more (the zero-filled tail of the
// last copies); thread t adds tile[((t + 1 + 16j) % 64) * 4 + j] * (k + j + 1) for j = 0..3,
// tile by tile, j by j (int adds wrap).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("async_tile_pipeline") {
  constexpr int32_t BLOCK = 64, CHUNK = 4;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t tiles = L.scalar<int32_t>("tiles");
  const int32_t n = L.scalar<int32_t>("n");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("async_tile_pipeline needs 64 threads per CTA");
  forEachThread(L, [&](const Thread& t) {
    const int32_t base = static_cast<int32_t>(t.bx) * tiles * BLOCK * CHUNK;
    int32_t acc = 0;
    for (int32_t k = 0; k < tiles; ++k)
      for (int32_t j = 0; j < CHUNK; ++j) {
        const int32_t idx = base + k * BLOCK * CHUNK + static_cast<int32_t>((t.tx + 1 + 16 * j) % BLOCK) * CHUNK + j;
        const int32_t v = idx < n ? in[idx] : 0;
        acc = wadd(acc, wmul(v, k + j + 1));
      }
    out[static_cast<int32_t>(t.bx) * BLOCK + static_cast<int32_t>(t.tx)] = acc;
  });
}
