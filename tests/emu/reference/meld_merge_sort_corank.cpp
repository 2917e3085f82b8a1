// tests/kernels/meld_merge_sort_corank.cu: one bottom-up merge pass, each pair of sorted runs of
// `width` keys (the last ones cut at n) merged with std::merge (ties: the left run first).
#include <algorithm>

#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
void meldMergeSortCorankReference(RefLaunch& L) {
  auto in = L.buf<int32_t>("in");
  auto out = L.buf<int32_t>("out");
  const int32_t n = L.scalar<int32_t>("n"), width = L.scalar<int32_t>("width");
  if (n < 0 || static_cast<size_t>(n) > in.size() || static_cast<size_t>(n) > out.size() || width <= 0)
    throw std::runtime_error("meld_merge_sort_corank: bad n or width");
  if (static_cast<int64_t>(numBlocks(L)) * threadsPerBlock(L) < n)
    throw std::runtime_error("meld_merge_sort_corank: fewer threads than keys");
  for (int32_t base = 0; base < n; base += 2 * width) {
    const int32_t mid = std::min(base + width, n), end = std::min(base + 2 * width, n);
    if (!std::is_sorted(in.begin() + base, in.begin() + mid) || !std::is_sorted(in.begin() + mid, in.begin() + end))
      throw std::runtime_error("meld_merge_sort_corank: a run is not sorted");
    std::merge(in.begin() + base, in.begin() + mid, in.begin() + mid, in.begin() + end, out.begin() + base);
  }
}
}  // namespace

PTXOPT_REFERENCE("meld_merge_sort_corank.divergent") { meldMergeSortCorankReference(L); }
PTXOPT_REFERENCE("meld_merge_sort_corank.uniform") { meldMergeSortCorankReference(L); }
