// tests/kernels/meld_lud.cu: with the diagonal tile D = L U (L unit lower, U upper, stored in one
// tile), each CTA's row tile R becomes L^-1 R and its column tile C becomes C U^-1, solved by
// substitution in 32-bit unsigned arithmetic (wrapping; the division by U's diagonal truncates).
#include <vector>

#include "RefUtil.h"

using namespace ptxopt::ref;

namespace {
void meldLudReference(RefLaunch& L) {
  auto dia = buffer<uint32_t>(L, "dia");
  auto row = buffer<uint32_t>(L, "row");
  auto col = buffer<uint32_t>(L, "col");
  const int32_t bs = L.scalar<int32_t>("bs");
  if (bs < 1 || bs > 32 || threadsPerBlock(L) != static_cast<uint32_t>(2 * bs))
    throw std::runtime_error("meld_lud needs 1 <= bs <= 32 and 2*bs threads per CTA");
  auto D = [&](int i, int j) { return dia[i * bs + j]; };
  for (uint32_t blk = 0; blk < numBlocks(L); ++blk) {
    const int64_t tile = static_cast<int64_t>(blk) * bs * bs;
    // X = L^-1 R: X[i][c] = R[i][c] - sum_{j<i} L[i][j] X[j][c]
    std::vector<uint32_t> X(static_cast<size_t>(bs * bs));
    for (int i = 0; i < bs; ++i)
      for (int c = 0; c < bs; ++c) {
        uint32_t v = row[tile + i * bs + c];
        for (int j = 0; j < i; ++j) v -= D(i, j) * X[static_cast<size_t>(j * bs + c)];
        X[static_cast<size_t>(i * bs + c)] = v;
      }
    // Y = C U^-1: Y[r][i] = (C[r][i] - sum_{j<i} Y[r][j] U[j][i]) / U[i][i]
    std::vector<uint32_t> Y(static_cast<size_t>(bs * bs));
    for (int r = 0; r < bs; ++r)
      for (int i = 0; i < bs; ++i) {
        uint32_t v = col[tile + r * bs + i];
        for (int j = 0; j < i; ++j) v -= Y[static_cast<size_t>(r * bs + j)] * D(j, i);
        if (D(i, i) == 0) throw std::runtime_error("meld_lud: zero on the diagonal");
        Y[static_cast<size_t>(r * bs + i)] = v / D(i, i);
      }
    for (int e = 0; e < bs * bs; ++e) {
      row[tile + e] = X[static_cast<size_t>(e)];
      col[tile + e] = Y[static_cast<size_t>(e)];
    }
  }
}
}  // namespace

PTXOPT_REFERENCE("meld_lud.divergent") { meldLudReference(L); }
PTXOPT_REFERENCE("meld_lud.uniform") { meldLudReference(L); }
