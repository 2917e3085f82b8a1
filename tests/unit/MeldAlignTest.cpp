// meld's alignment (src/passes/MeldAlign.h) tested directly: the best order-preserving pairing,
// no pair without a positive score, every element once and in order, lone left elements before
// lone right ones between pairs, and the earliest pairing among equals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "MeldAlign.h"

using namespace ptxopt;

namespace {

// Letters pair when equal; the score of a pair is given per letter.
std::vector<AlignStep> alignText(const std::string& a, const std::string& b, double score = 1) {
  return alignSequences(a.size(), b.size(), [&](size_t i, size_t j) { return a[i] == b[j] ? score : 0.0; });
}

std::string render(const std::string& a, const std::string& b, const std::vector<AlignStep>& steps) {
  std::string out;
  for (const AlignStep& s : steps) {
    if (s.isPair())
      out += std::string(1, a[s.left]) + "=" + b[s.right] + " ";
    else if (s.left >= 0)
      out += std::string(1, a[s.left]) + "< ";
    else
      out += std::string(1, b[s.right]) + "> ";
  }
  return out;
}

// Every element appears once, in order, on its side.
void expectComplete(size_t n, size_t m, const std::vector<AlignStep>& steps) {
  int nextL = 0, nextR = 0;
  for (const AlignStep& s : steps) {
    if (s.left >= 0) {
      EXPECT_EQ(s.left, nextL++);
    }
    if (s.right >= 0) {
      EXPECT_EQ(s.right, nextR++);
    }
  }
  EXPECT_EQ(size_t(nextL), n);
  EXPECT_EQ(size_t(nextR), m);
}

TEST(MeldAlign, LongestCommonOrderIsPaired) {
  const std::string a = "lmsab", b = "lmxsb";
  auto steps = alignText(a, b);
  expectComplete(a.size(), b.size(), steps);
  EXPECT_EQ(render(a, b, steps), "l=l m=m x> s=s a< b=b ");
}

TEST(MeldAlign, NothingPairsWithoutAPositiveScore) {
  auto steps = alignText("abc", "abc", 0.0);
  expectComplete(3, 3, steps);
  for (const AlignStep& s : steps) EXPECT_FALSE(s.isPair());
  // The left side's lone elements come first.
  EXPECT_EQ(render("abc", "abc", steps), "a< b< c< a> b> c> ");
}

TEST(MeldAlign, WeightsDecideBetweenCrossingPairs) {
  // "ab" against "ba": either a or b pairs, not both (order is kept); the heavier wins.
  auto heavyB = alignSequences(2, 2, [](size_t i, size_t j) { return (i == 0 && j == 1) ? 1.0 : (i == 1 && j == 0) ? 3.0 : 0.0; });
  EXPECT_EQ(render("ab", "ba", heavyB), "a< b=b a> ");
  auto heavyA = alignSequences(2, 2, [](size_t i, size_t j) { return (i == 0 && j == 1) ? 3.0 : (i == 1 && j == 0) ? 1.0 : 0.0; });
  EXPECT_EQ(render("ab", "ba", heavyA), "b> a=a b< ");
}

TEST(MeldAlign, EqualScoresPairTheEarliest) {
  // One "a" on the right, two on the left: the first left "a" takes it.
  auto steps = alignText("aa", "a");
  EXPECT_EQ(render("aa", "a", steps), "a=a a< ");
}

TEST(MeldAlign, EmptySides) {
  EXPECT_TRUE(alignText("", "").empty());
  EXPECT_EQ(render("ab", "", alignText("ab", "")), "a< b< ");
  EXPECT_EQ(render("", "ab", alignText("", "ab")), "a> b> ");
}

}  // namespace
