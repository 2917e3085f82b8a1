// tests/kernels/meld_nqueens.cu: the number of ways to complete an n-queens board whose first two
// rows hold queens at columns prefix / n and prefix % n, counted by plain recursion over column
// positions (0 when the two queens attack each other).
#include <cstdlib>
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
bool safe(const std::vector<int>& q, int row, int c) {
  for (int r = 0; r < row; ++r)
    if (q[static_cast<size_t>(r)] == c || std::abs(q[static_cast<size_t>(r)] - c) == row - r) return false;
  return true;
}
int32_t complete(std::vector<int>& q, int row, int n) {
  if (row == n) return 1;
  int32_t total = 0;
  for (int c = 0; c < n; ++c)
    if (safe(q, row, c)) {
      q[static_cast<size_t>(row)] = c;
      total += complete(q, row + 1, n);
    }
  return total;
}
}  // namespace

namespace {
void meldNqueensReference(RefLaunch& L) {
  auto prefix = buffer<int32_t>(L, "prefix");
  auto count = buffer<int32_t>(L, "count");
  const int32_t n = L.scalar<int32_t>("n");
  if (n < 3 || n > 12) throw std::runtime_error("meld_nqueens needs 3 <= n <= 12");
  forEachThread(L, [&](const Thread& t) {
    const int32_t g = globalX(t);
    const int32_t p = prefix[g];
    if (p < 0 || p >= n * n) throw std::runtime_error("meld_nqueens: prefix out of range");
    std::vector<int> q(static_cast<size_t>(n));
    q[0] = p / n;
    int32_t found = 0;
    if (safe(q, 1, p % n)) {
      q[1] = p % n;
      found = complete(q, 2, n);
    }
    count[g] = found;
  });
}
}  // namespace

PTXOPT_REFERENCE("meld_nqueens.divergent") { meldNqueensReference(L); }
PTXOPT_REFERENCE("meld_nqueens.uniform") { meldNqueensReference(L); }
