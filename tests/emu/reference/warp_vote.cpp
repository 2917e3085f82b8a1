// tests/kernels/warp_vote.cu: ballot/any/all over full warps, then a ballot of the even lanes
// (mask 0x55555555, exactly the lanes that take the branch).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("warp_vote") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<uint32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  if (nt % 32 != 0) throw std::runtime_error("warp_vote: the reference models full warps only");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    for (uint32_t w = 0; w < nt / 32; ++w) {
      std::array<int32_t, 32> v{}, gi{};
      uint32_t ballot = 0, evenBallot = 0;
      bool anyNeg = false, allSmall = true;
      for (uint32_t l = 0; l < 32; ++l) {
        gi[l] = globalX(makeThread(L, blk, w * 32 + l));
        v[l] = (gi[l] < n) ? in[gi[l]] : 0;
        if (v[l] > 30) ballot |= 1u << l;
        anyNeg |= v[l] < 0;
        allSmall &= v[l] < 59;
        if ((l & 1) == 0 && (v[l] & 1)) evenBallot |= 1u << l;
      }
      for (uint32_t l = 0; l < 32; ++l) {
        uint32_t r = ballot ^ (anyNeg ? 0x80000000u : 0u) ^ (allSmall ? 1u : 0u);
        if ((l & 1) == 0) r += popc32(evenBallot) + (evenBallot & 0xffu);
        r += popc32(ballot & ((1u << l) - 1u));
        if (gi[l] < n) out[gi[l]] = r;
      }
    }
  }
}
