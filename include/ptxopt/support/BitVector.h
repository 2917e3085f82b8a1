// A fixed-size dense bit set for dataflow analyses.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace ptxopt {

// to |= from over n words; true when `to` changed. The one union loop of BitVector and BitRows.
inline bool uniteWords(uint64_t* to, const uint64_t* from, size_t n) {
  bool changed = false;
  for (size_t k = 0; k < n; ++k) {
    uint64_t w = to[k] | from[k];
    changed |= w != to[k];
    to[k] = w;
  }
  return changed;
}

class BitVector {
 public:
  BitVector() = default;
  explicit BitVector(size_t bits) : bits_(bits), words_((bits + 63) / 64, 0) {}

  size_t size() const { return bits_; }
  bool test(size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set(size_t i) { words_[i >> 6] |= uint64_t(1) << (i & 63); }
  void reset(size_t i) { words_[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  void clear() {
    for (uint64_t& w : words_) w = 0;
  }
  bool any() const {
    for (uint64_t w : words_)
      if (w) return true;
    return false;
  }
  size_t count() const {
    size_t n = 0;
    for (uint64_t w : words_) n += static_cast<size_t>(std::popcount(w));
    return n;
  }
  // this |= other; returns true when this changed.
  bool unite(const BitVector& other) { return uniteWords(words_.data(), other.words_.data(), words_.size()); }
  void intersect(const BitVector& other) {
    for (size_t k = 0; k < words_.size(); ++k) words_[k] &= other.words_[k];
  }
  void subtract(const BitVector& other) {
    for (size_t k = 0; k < words_.size(); ++k) words_[k] &= ~other.words_[k];
  }
  // this = (from − minus) ∪ plus, a dataflow transfer in one pass over the words; returns true
  // when this changed.
  bool assignTransfer(const BitVector& from, const BitVector& minus, const BitVector& plus) {
    bool changed = false;
    for (size_t k = 0; k < words_.size(); ++k) {
      uint64_t w = (from.words_[k] & ~minus.words_[k]) | plus.words_[k];
      changed |= w != words_[k];
      words_[k] = w;
    }
    return changed;
  }
  // The same with a row of a BitRows of the same width.
  bool unite(const uint64_t* other) { return uniteWords(words_.data(), other, words_.size()); }
  // other = this; returns true when other changed.
  bool storeInto(uint64_t* other) const {
    bool changed = false;
    for (size_t k = 0; k < words_.size(); ++k) {
      changed |= other[k] != words_[k];
      other[k] = words_[k];
    }
    return changed;
  }
  const uint64_t* data() const { return words_.data(); }
  bool operator==(const BitVector& o) const { return bits_ == o.bits_ && words_ == o.words_; }
  bool operator!=(const BitVector& o) const { return !(*this == o); }

  template <typename F>
  void forEach(F&& f) const {
    for (size_t k = 0; k < words_.size(); ++k) {
      uint64_t w = words_[k];
      while (w) {
        int b = std::countr_zero(w);
        f(k * 64 + static_cast<size_t>(b));
        w &= w - 1;
      }
    }
  }

 private:
  size_t bits_ = 0;
  std::vector<uint64_t> words_;
};

// Equal-width bit sets in one allocation (a dataflow analysis's per-block sets, where a vector of
// BitVectors would allocate, fill and free one array per block).
class BitRows {
 public:
  BitRows() = default;
  BitRows(size_t rows, size_t bits) : width_((bits + 63) / 64), rows_(rows), words_(rows * width_, 0) {}
  uint64_t* row(size_t r) { return words_.data() + r * width_; }
  const uint64_t* row(size_t r) const { return words_.data() + r * width_; }
  void set(size_t r, size_t i) { row(r)[i >> 6] |= uint64_t(1) << (i & 63); }
  // row r |= from (a row of this or another BitRows of the same width); true when it changed.
  bool unite(size_t r, const uint64_t* from) { return uniteWords(row(r), from, width_); }
  // Appends a row of zeros; returns its number.
  size_t add() {
    words_.resize(words_.size() + width_, 0);
    return rows_++;
  }

 private:
  size_t width_ = 0, rows_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace ptxopt
