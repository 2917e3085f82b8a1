// tests/kernels/coop_groups_tile.cu: tiled_partition<8> of each CTA. tile.shfl_down is
// shfl.sync.down with c = 0x181f (8-lane segments) and the tile's member mask; tile.any is a
// ballot over the tile's lanes; meta_group_size is 16 for 128 threads.
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("coop_groups_tile") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  if (nt % 32 != 0) throw std::runtime_error("coop_groups_tile: the reference models full warps only");
  const uint32_t metaSize = (nt + 7) / 8;
  const uint32_t c = shflC(ShflMode::Down, 8);
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    std::vector<int32_t> v(nt), s(nt);
    std::vector<bool> neg(nt);
    std::vector<int32_t> tileSums(16, 0);
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      v[t] = (i < n) ? in[i] : 0;
    }
    for (uint32_t w = 0; w < nt / 32; ++w) {
      std::array<int32_t, 32> sv;
      for (uint32_t l = 0; l < 32; ++l) sv[l] = v[w * 32 + l];
      for (uint32_t off = 4; off > 0; off >>= 1) {
        auto got = shflWarp(sv, ShflMode::Down, off, c);
        for (uint32_t l = 0; l < 32; ++l) sv[l] = wadd(sv[l], got[l]);
      }
      for (uint32_t l = 0; l < 32; ++l) s[w * 32 + l] = sv[l];
    }
    for (uint32_t t = 0; t < nt; ++t) {
      bool any = false;
      for (uint32_t k = t & ~7u; k < (t & ~7u) + 8; ++k) any |= v[k] < -90;
      neg[t] = any;
    }
    for (uint32_t t = 0; t < nt; ++t)
      if ((t & 7) == 0) {
        if ((t >> 3) >= tileSums.size()) throw std::runtime_error("coop_groups_tile: tile_sums[16] overflow");
        tileSums[t >> 3] = s[t];
      }
    for (uint32_t t = 0; t < nt; ++t) {
      int32_t i = globalX(makeThread(L, blk, t));
      uint32_t other = ((t >> 3) + 1) % metaSize;
      if (other >= tileSums.size()) throw std::runtime_error("coop_groups_tile: tile_sums[16] overflow");
      if (i < n) {
        int32_t leader = s[t & ~7u];  // tile.shfl(s, 0)
        out[i] = wadd(wadd(wadd(wmul(leader, 4), tileSums[other]), neg[t] ? 1 : 0), static_cast<int32_t>(t & 7));
      }
    }
  }
}
