// tests/kernels/meld_binary_search_pair.cu: std::lower_bound in A (key k >= 0) or in B (key 3*~k).
#include <algorithm>
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
void meldBinarySearchPairReference(RefLaunch& L) {
  auto keys = buffer<int32_t>(L, "keys");
  auto idx = buffer<int32_t>(L, "idx");
  auto val = buffer<int32_t>(L, "val");
  const int32_t na = L.scalar<int32_t>("na"), nb = L.scalar<int32_t>("nb");
  if (na < 0 || nb < 0 || static_cast<size_t>(na) > L.buf<int32_t>("A").size() ||
      static_cast<size_t>(nb) > L.buf<int32_t>("B").size())
    throw std::runtime_error("meld_binary_search_pair: na or nb past the arrays");
  auto A = L.buf<int32_t>("A").first(static_cast<size_t>(na));
  auto B = L.buf<int32_t>("B").first(static_cast<size_t>(nb));
  if (!std::is_sorted(A.begin(), A.end()) || !std::is_sorted(B.begin(), B.end()))
    throw std::runtime_error("meld_binary_search_pair needs sorted A and B");
  forEachThread(L, [&](const Thread& t) {
    const int32_t g = globalX(t);
    const int32_t k = keys[g];
    const bool inA = k >= 0;
    std::span<int32_t> arr = inA ? A : B;
    const int32_t key = inA ? k : wmul(3, ~k);
    auto it = std::lower_bound(arr.begin(), arr.end(), key);
    idx[g] = static_cast<int32_t>(it - arr.begin());
    val[g] = it == arr.end() ? 0x7fffffff : *it;
  });
}
}  // namespace

PTXOPT_REFERENCE("meld_binary_search_pair.divergent") { meldBinarySearchPairReference(L); }
PTXOPT_REFERENCE("meld_binary_search_pair.uniform") { meldBinarySearchPairReference(L); }
