// tests/kernels/sync_tiled_loop.cu: out[g] is the weighted sum over all tiles * 128 elements of x
// with weight ((g ^ index) & 7) - 3, accumulated tile by tile and element by element in the
// kernel's order (the int adds wrap, so the order would not matter anyway).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_tiled_loop") {
  constexpr int32_t BLOCK = 128;
  auto x = buffer<int32_t>(L, "x");
  auto out = buffer<int32_t>(L, "out");
  const int32_t tiles = L.scalar<int32_t>("tiles");
  if (threadsPerBlock(L) != BLOCK) throw std::runtime_error("sync_tiled_loop needs 128 threads per CTA");
  forEachThread(L, [&](const Thread& t) {
    int32_t g = globalX(t);
    int32_t acc = 0;
    for (int32_t k = 0; k < tiles; ++k)
      for (int32_t j = 0; j < BLOCK; ++j) {
        int32_t idx = k * BLOCK + j;
        acc = wadd(acc, wmul(x[idx], ((g ^ idx) & 7) - 3));
      }
    out[g] = acc;
  });
}
