// A vector of trivially copyable elements that keeps its first N elements inline.
//
// Instructions have few operands and modifiers; keeping them inline saves one heap allocation
// per instruction and keeps the IR of a 1 MB PTX file within a few megabytes.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>

namespace ptxopt {

template <typename T, unsigned N>
class InlineVec {
  static_assert(std::is_trivially_copyable_v<T>, "InlineVec holds trivially copyable types");

 public:
  InlineVec() = default;
  InlineVec(std::initializer_list<T> init) {
    for (const T& v : init) push_back(v);
  }
  InlineVec(const InlineVec& other) { assign(other); }
  InlineVec& operator=(const InlineVec& other) {
    if (this != &other) {
      size_ = 0;
      assign(other);
    }
    return *this;
  }
  InlineVec(InlineVec&& other) noexcept { steal(other); }
  InlineVec& operator=(InlineVec&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~InlineVec() { release(); }

  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) {
    assert(i < size_);
    return data()[i];
  }
  const T& operator[](size_t i) const {
    assert(i < size_);
    return data()[i];
  }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == capacity()) grow(size_ * 2);
    data()[size_++] = v;
  }
  void pop_back() {
    assert(size_ > 0);
    --size_;
  }
  void clear() { size_ = 0; }
  void resize(uint32_t n, const T& fill = T()) {
    if (n > capacity()) grow(n);
    for (uint32_t i = size_; i < n; ++i) data()[i] = fill;
    size_ = n;
  }
  void insert(uint32_t pos, const T& v) {
    assert(pos <= size_);
    T copy = v;
    if (size_ == capacity()) grow(size_ * 2);
    T* d = data();
    std::memmove(static_cast<void*>(d + pos + 1), d + pos, (size_ - pos) * sizeof(T));
    d[pos] = copy;
    ++size_;
  }
  void erase(uint32_t pos) {
    assert(pos < size_);
    T* d = data();
    std::memmove(static_cast<void*>(d + pos), d + pos + 1, (size_ - pos - 1) * sizeof(T));
    --size_;
  }

 private:
  uint32_t capacity() const { return heap_ ? cap_ : N; }
  void grow(uint32_t want) {
    if (want < N * 2) want = N * 2;
    if (want < 4) want = 4;
    T* fresh = static_cast<T*>(::operator new(sizeof(T) * want));
    std::memcpy(static_cast<void*>(fresh), data(), size_ * sizeof(T));
    ::operator delete(heap_);
    heap_ = fresh;
    cap_ = want;
  }
  void assign(const InlineVec& other) {
    if (other.size_ > capacity()) grow(other.size_);
    std::memcpy(static_cast<void*>(data()), other.data(), other.size_ * sizeof(T));
    size_ = other.size_;
  }
  void steal(InlineVec& other) {
    if (other.heap_) {
      heap_ = other.heap_;
      cap_ = other.cap_;
      size_ = other.size_;
      other.heap_ = nullptr;
      other.size_ = 0;
      other.cap_ = 0;
    } else {
      heap_ = nullptr;
      cap_ = 0;
      std::memcpy(static_cast<void*>(inline_), other.inline_, other.size_ * sizeof(T));
      size_ = other.size_;
      other.size_ = 0;
    }
  }
  void release() {
    ::operator delete(heap_);
    heap_ = nullptr;
    cap_ = 0;
    size_ = 0;
  }

  T* heap_ = nullptr;
  uint32_t size_ = 0;
  uint32_t cap_ = 0;
  T inline_[N];
};

}  // namespace ptxopt
