// tests/kernels/matrix_transpose_smem.cu: the 32x33 tile per CTA, loaded then stored.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("matrix_transpose_smem") {
  constexpr int32_t TILE = 32, ROWS = 8;
  auto in = buffer<float>(L, "in");
  auto out = buffer<float>(L, "out");
  const int32_t width = L.scalar<int32_t>("width");
  const int32_t height = L.scalar<int32_t>("height");
  if (L.block()[0] != 32 || L.block()[1] != 8 || L.block()[2] != 1)
    throw std::runtime_error("matrix_transpose_smem needs 32x8 threads per CTA");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<float> tile(TILE * (TILE + 1), 0.0f);
    Thread t0 = makeThread(L, blk, 0);
    for (uint32_t tl = 0; tl < threadsPerBlock(L); ++tl) {
      Thread t = makeThread(L, blk, tl);
      int32_t x = static_cast<int32_t>(t.bx * TILE + t.tx), y = static_cast<int32_t>(t.by * TILE + t.ty);
      for (int32_t j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height) tile[(t.ty + j) * (TILE + 1) + t.tx] = in[int64_t(y + j) * width + x];
    }
    (void)t0;
    for (uint32_t tl = 0; tl < threadsPerBlock(L); ++tl) {
      Thread t = makeThread(L, blk, tl);
      int32_t x = static_cast<int32_t>(t.by * TILE + t.tx), y = static_cast<int32_t>(t.bx * TILE + t.ty);
      for (int32_t j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width) out[int64_t(y + j) * height + x] = tile[t.tx * (TILE + 1) + t.ty + j];
    }
  }
}
