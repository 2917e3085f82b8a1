// tests/kernels/mbarrier_bulk_pipeline.cu: tile k of CTA b holds in[b * tiles * 128 + k * 128 + i]
// for i < 128; thread t adds tile[(5t + k) % 128] * (k + 1), tile by tile (int adds wrap).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("mbarrier_bulk_pipeline") {
  constexpr int32_t BLOCK = 128, TILE = 128;
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t tiles = L.scalar<int32_t>("tiles");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("mbarrier_bulk_pipeline needs 128 threads per CTA");
  forEachThread(L, [&](const Thread& t) {
    const int32_t base = static_cast<int32_t>(t.bx) * tiles * TILE;
    int32_t acc = 0;
    for (int32_t k = 0; k < tiles; ++k) {
      const int32_t idx = base + k * TILE + static_cast<int32_t>((5 * t.tx + static_cast<uint32_t>(k)) % TILE);
      acc = wadd(acc, wmul(in[idx], k + 1));
    }
    out[static_cast<int32_t>(t.bx) * BLOCK + static_cast<int32_t>(t.tx)] = acc;
  });
}
