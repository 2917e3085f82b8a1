// tests/kernels/meld_oddeven_merge.cu: 128 phases of odd-even transposition sort 128 keys, so
// each CTA's keys end up sorted ascending (whatever the layout of elements over threads).
#include <algorithm>

#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
void meldOddevenMergeReference(RefLaunch& L) {
  constexpr uint32_t N = 128;
  if (threadsPerBlock(L) != N) throw std::runtime_error("meld_oddeven_merge needs 128 threads per CTA");
  std::span<int32_t> all = L.buf<int32_t>("keys");
  if (all.size() < numBlocks(L) * N) throw std::runtime_error("meld_oddeven_merge: keys too small");
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    auto s = all.subspan(blk * N, N);
    std::sort(s.begin(), s.end());
  }
}
}  // namespace

PTXOPT_REFERENCE("meld_oddeven_merge.divergent") { meldOddevenMergeReference(L); }
PTXOPT_REFERENCE("meld_oddeven_merge.uniform") { meldOddevenMergeReference(L); }
