// The sequence alignment of meld (docs/passes/meld.md): which instructions of two blocks become
// one. Kept apart from the pass so that the unit tests reach it.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace ptxopt {

// One step of an alignment: a pair (both indices set), or an element of one sequence alone
// (the other index -1).
struct AlignStep {
  int left = -1, right = -1;
  bool isPair() const { return left >= 0 && right >= 0; }
};

// The order-preserving alignment of sequences of n and m elements that maximizes the sum of
// score(i, j) over its pairs; a pair whose score is not positive is never formed. Every element
// appears once, in order; between two pairs the left sequence's lone elements come first. Ties
// go to the alignment that pairs earlier elements (deterministic for equal scores). The work is
// n * m calls of `score` and n * m cells.
std::vector<AlignStep> alignSequences(size_t n, size_t m, const std::function<double(size_t, size_t)>& score);

}  // namespace ptxopt
