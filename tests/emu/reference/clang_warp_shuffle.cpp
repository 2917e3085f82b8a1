// tests/kernels/clang/warp_shuffle.cu (clang++-14 PTX): the shuffles are the shim's inline
// shfl.sync.{down,idx,up,bfly}.b32 with c = 0x1f (up: 0) and a full mask, over full warps; lane
// selection per the PTX ISA (shflSourceLane). The ballot is vote.sync.ballot.b32 over all 32
// lanes and the rank popc(voters & ~(-1 << lane)).
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("clang_warp_shuffle") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  if (nt % 32 != 0) throw std::runtime_error("clang_warp_shuffle: the reference models full warps only");
  const uint32_t c32 = shflC(ShflMode::Down, 32), cUp = shflC(ShflMode::Up, 32);
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    for (uint32_t w = 0; w < nt / 32; ++w) {
      std::array<int32_t, 32> v{}, sum, scan, mx, rot;
      std::array<int32_t, 32> gi{};
      for (uint32_t l = 0; l < 32; ++l) {
        gi[l] = globalX(makeThread(L, blk, w * 32 + l));
        v[l] = (gi[l] < n) ? in[gi[l]] : 0;
      }
      sum = v;
      for (uint32_t off = 16; off > 0; off >>= 1) {
        auto got = shflWarp(sum, ShflMode::Down, off, c32);
        for (uint32_t l = 0; l < 32; ++l) sum[l] = wadd(sum[l], got[l]);
      }
      sum = shflWarp(sum, ShflMode::Idx, 0u, c32);
      scan = v;
      for (uint32_t off = 1; off < 32; off <<= 1) {
        auto got = shflWarp(scan, ShflMode::Up, off, cUp);
        for (uint32_t l = 0; l < 32; ++l)
          if (l >= off) scan[l] = wadd(scan[l], got[l]);
      }
      mx = v;
      for (uint32_t m = 1; m < 32; m <<= 1) {
        auto got = shflWarp(mx, ShflMode::Bfly, m, c32);
        for (uint32_t l = 0; l < 32; ++l) mx[l] = std::max(mx[l], got[l]);
      }
      std::array<uint32_t, 32> src;
      for (uint32_t l = 0; l < 32; ++l) src[l] = l + 5;
      rot = shflWarp(v, ShflMode::Idx, src, c32);
      uint32_t voters = 0;
      for (uint32_t l = 0; l < 32; ++l)
        if (v[l] > 0) voters |= 1u << l;
      for (uint32_t l = 0; l < 32; ++l) {
        int32_t rank = static_cast<int32_t>(popc32(voters & ((1u << l) - 1u)));
        if (gi[l] < n) out[gi[l]] = wadd(wadd(wadd(sum[l] ^ scan[l], wmul(mx[l], 3)), rot[l]), rank);
      }
    }
  }
}
