// tests/kernels/meld_bitonic_sort.cu: each CTA's 128 keys end up sorted ascending. From stage kmin
// on, the network sorts only when the keys already are what the earlier stages leave: runs of
// kmin/2 sorted ascending (even runs) and descending (odd runs); the reference checks that and
// sorts with std::sort.
#include <algorithm>
#include <functional>

#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
void meldBitonicSortReference(RefLaunch& L) {
  constexpr uint32_t N = 128;
  const uint32_t kmin = L.scalar<uint32_t>("kmin");
  if (threadsPerBlock(L) != N) throw std::runtime_error("meld_bitonic_sort needs 128 threads per CTA");
  if (kmin < 2 || kmin > N || (kmin & (kmin - 1)) != 0) throw std::runtime_error("meld_bitonic_sort: kmin must be 2, 4, ..., 128");
  std::span<int32_t> all = L.buf<int32_t>("keys");
  if (all.size() < numBlocks(L) * N) throw std::runtime_error("meld_bitonic_sort: keys too small");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    auto s = all.subspan(blk * N, N);
    const uint32_t run = kmin / 2;
    for (uint32_t r = 0; run > 1 && r < N / run; ++r) {
      auto part = s.subspan(r * run, run);
      bool ok = (r % 2 == 0) ? std::is_sorted(part.begin(), part.end())
                             : std::is_sorted(part.begin(), part.end(), std::greater<int32_t>());
      if (!ok) throw std::runtime_error("meld_bitonic_sort: the keys are not in the runs stage kmin expects");
    }
    std::sort(s.begin(), s.end());
  }
}
}  // namespace

PTXOPT_REFERENCE("meld_bitonic_sort.divergent") { meldBitonicSortReference(L); }
PTXOPT_REFERENCE("meld_bitonic_sort.uniform") { meldBitonicSortReference(L); }
