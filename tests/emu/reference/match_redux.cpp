// tests/kernels/match_redux.cu: match.any/match.all over each full warp, and the redux.sync
// add/max/or (sm_80+; the shuffle fallback below sm_80 computes the same values).
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("match_redux") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<uint32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  const uint32_t nt = threadsPerBlock(L);
  if (nt % 32 != 0) throw std::runtime_error("match_redux: the reference models full warps only");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    for (uint32_t w = 0; w < nt / 32; ++w) {
      std::array<uint32_t, 32> key{}, ukey{}, v{};
      std::array<int32_t, 32> gi{};
      for (uint32_t l = 0; l < 32; ++l) {
        Thread t = makeThread(L, blk, w * 32 + l);
        int32_t i = globalX(t);
        gi[l] = i;
        key[l] = (i < n) ? static_cast<uint32_t>(in[i]) : 99u;
        ukey[l] = (t.tx < 32u) ? 7u : key[l];
        v[l] = key[l] * 10u + (t.tx & 31u);
      }
      bool allEqual = true;
      for (uint32_t l = 1; l < 32; ++l) allEqual &= ukey[l] == ukey[0];
      uint32_t allMask = allEqual ? 0xffffffffu : 0u;
      uint32_t sum = 0, mx = 0, orr = 0;
      for (uint32_t l = 0; l < 32; ++l) {
        sum += v[l];
        mx = std::max(mx, v[l]);
        orr |= 1u << (key[l] & 31u);
      }
      for (uint32_t l = 0; l < 32; ++l) {
        uint32_t peers = 0;
        for (uint32_t k = 0; k < 32; ++k)
          if (key[k] == key[l]) peers |= 1u << k;
        int32_t i = gi[l];
        if (i < n) {
          out[2 * int64_t(i)] = peers ^ (allEqual ? allMask : 0u);
          out[2 * int64_t(i) + 1] = sum + (mx << 16) + (orr << 24) + popc32(peers);
        }
      }
    }
  }
}
