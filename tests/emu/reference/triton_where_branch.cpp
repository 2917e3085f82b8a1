// tests/kernels/triton/where_branch.py (Triton's // and % on int32 truncate toward zero, as C).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("triton_where_branch") {
  constexpr int32_t BLOCK = 128;
  auto x = buffer<int32_t>(L, "x");
  auto mode = buffer<int32_t>(L, "mode");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  for (uint32_t pid = 0; pid < numBlocks(L); ++pid) {
    const int32_t md = mode[pid];
    int32_t steps = 0;
    for (int32_t limit = wadd(wmul(md, 1000), 37); limit > 5; limit = sdiv(limit, 2)) ++steps;
    for (int32_t j = 0; j < BLOCK; ++j) {
      const int32_t i = int32_t(pid) * BLOCK + j;
      if (i >= n) continue;
      const int32_t v = x[i];
      int32_t r;
      if (md == 0)
        r = v > 0 ? wmul(v, 2) : wneg(v);
      else if (md == 1)
        r = srem(v, 3) == 0 ? sdiv(v, 3) : wadd(v, 7);
      else
        r = wsub(std::max(v, 10), std::min(v, -10));
      out[i] = wadd(r, steps);
    }
  }
}
