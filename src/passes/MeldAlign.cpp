#include "MeldAlign.h"

#include <algorithm>

namespace ptxopt {

std::vector<AlignStep> alignSequences(size_t n, size_t m, const std::function<double(size_t, size_t)>& score) {
  // best[i][j]: the best sum aligning the suffixes from i and from j; filled backwards so that
  // the walk forward can prefer a pair as early as possible.
  const size_t w = m + 1;
  std::vector<double> best((n + 1) * w, 0.0), pair(n * m, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) pair[i * m + j] = score(i, j);
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) {
      double v = std::max(best[(i + 1) * w + j], best[i * w + j + 1]);
      if (pair[i * m + j] > 0) v = std::max(v, pair[i * m + j] + best[(i + 1) * w + j + 1]);
      best[i * w + j] = v;
    }
  std::vector<AlignStep> steps;
  std::vector<int> lonelyRight;
  size_t i = 0, j = 0;
  auto flushRight = [&] {
    for (int r : lonelyRight) steps.push_back({-1, r});
    lonelyRight.clear();
  };
  while (i < n && j < m) {
    const double here = best[i * w + j];
    const double p = pair[i * m + j];
    if (p > 0 && p + best[(i + 1) * w + j + 1] >= here - 1e-9) {
      flushRight();
      steps.push_back({int(i), int(j)});
      ++i, ++j;
    } else if (best[(i + 1) * w + j] >= here - 1e-9) {
      steps.push_back({int(i), -1});
      ++i;
    } else {
      lonelyRight.push_back(int(j));
      ++j;
    }
  }
  for (; i < n; ++i) steps.push_back({int(i), -1});
  flushRight();
  for (; j < m; ++j) steps.push_back({-1, int(j)});
  return steps;
}

}  // namespace ptxopt
