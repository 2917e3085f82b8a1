// A map from names to small values for the front end's tables (opcodes, modifiers, special
// registers, a scope's register names), looked up once or more per token: open addressing
// over a power-of-two array of slots, FNV-1a hashes, at most half full. The names are not
// copied: they must outlive the map (string literals, interned strings, the source text).
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxopt/support/Hash.h"

namespace ptxopt {

template <typename V>
class NameMap {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // Adds `name` -> `value` unless `name` is present; false (and no change) when it is.
  bool insert(std::string_view name, V value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot& s = slots_[probe(name)];
    if (s.used) return false;
    s = Slot{name, std::move(value), true};
    ++size_;
    return true;
  }

  const V* find(std::string_view name) const {
    if (size_ == 0) return nullptr;
    const Slot& s = slots_[probe(name)];
    return s.used ? &s.value : nullptr;
  }
  V* find(std::string_view name) { return const_cast<V*>(std::as_const(*this).find(name)); }

 private:
  struct Slot {
    std::string_view name;
    V value{};
    bool used = false;
  };

  // The slot that holds `name`, or the empty slot where it would go.
  size_t probe(std::string_view name) const {
    size_t mask = slots_.size() - 1;
    for (size_t k = fnv1a(name) & mask;; k = (k + 1) & mask)
      if (!slots_[k].used || same(slots_[k].name, name)) return k;
  }
  // Names are short: compared in place rather than by a call to memcmp.
  static bool same(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : 2 * slots_.size());
    old.swap(slots_);
    for (Slot& s : old)
      if (s.used) slots_[probe(s.name)] = std::move(s);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace ptxopt
