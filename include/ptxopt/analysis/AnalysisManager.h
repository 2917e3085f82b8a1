// Lazily computed, cached analyses of one function (the SPIRV-Tools IRContext idea): a pass
// asks for what it needs; when it changes the function it says which analyses it kept
// (PreservedAnalyses), and only the others are dropped.
//
// An analysis is a class with `using Result = ...;`, `static constexpr const char* kName`,
// `static constexpr bool kCfgOnly` (true when the result follows from the CFG's edges alone:
// the CFG, dominators, post-dominators, frontiers, loops) and
// `static Result run(const Function&, FunctionAnalysisManager&)`.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <typeindex>
#include <unordered_map>
#include <vector>

#include "ptxopt/ir/Function.h"

namespace ptxopt {

// What a pass kept valid: everything, nothing, the CFG-only analyses, and/or named ones.
class PreservedAnalyses {
 public:
  static PreservedAnalyses all() {
    PreservedAnalyses p;
    p.all_ = true;
    return p;
  }
  static PreservedAnalyses none() { return {}; }
  // The pass changed no edge of the CFG: the CFG and every analysis computed from it alone.
  static PreservedAnalyses cfg() {
    PreservedAnalyses p;
    p.cfg_ = true;
    return p;
  }
  template <typename A>
  PreservedAnalyses& preserve() {
    names_.insert(A::kName);
    return *this;
  }
  bool preserves(std::string_view name, bool cfgOnly) const {
    return all_ || (cfg_ && cfgOnly) || names_.count(std::string(name));
  }
  bool preservesAll() const { return all_; }

 private:
  bool all_ = false, cfg_ = false;
  std::set<std::string> names_;
};

class FunctionAnalysisManager {
 public:
  explicit FunctionAnalysisManager(const Function& f) : f_(f) {}
  FunctionAnalysisManager(const FunctionAnalysisManager&) = delete;
  FunctionAnalysisManager& operator=(const FunctionAnalysisManager&) = delete;

  const Function& function() const { return f_; }

  template <typename A>
  const typename A::Result& get() {
    std::type_index key(typeid(A));
    auto it = results_.find(key);
    if (it == results_.end()) {
      auto start = std::chrono::steady_clock::now();
      auto result = std::make_shared<typename A::Result>(A::run(f_, *this));
      seconds_[A::kName] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ++runs_[A::kName];
      it = results_.emplace(key, Entry{std::shared_ptr<void>(result, result.get()), A::kName, A::kCfgOnly}).first;
      ++computed_;
    }
    return *static_cast<const typename A::Result*>(it->second.result.get());
  }
  template <typename A>
  bool cached() const {
    return results_.count(std::type_index(typeid(A))) != 0;
  }
  // Drops every result that `kept` does not preserve.
  void invalidate(const PreservedAnalyses& kept) {
    if (kept.preservesAll()) return;
    for (auto it = results_.begin(); it != results_.end();)
      it = kept.preserves(it->second.name, it->second.cfgOnly) ? std::next(it) : results_.erase(it);
  }
  void invalidateAll() { results_.clear(); }
  // The names of the cached results, sorted.
  std::vector<std::string_view> cachedNames() const {
    std::vector<std::string_view> out;
    for (const auto& [key, e] : results_) out.push_back(e.name);
    std::sort(out.begin(), out.end());
    return out;
  }
  // How many analysis results were computed so far (for tests of laziness and invalidation),
  // in all and by analysis, and the time spent computing each.
  unsigned computedCount() const { return computed_; }
  const std::map<std::string, unsigned>& runs() const { return runs_; }
  const std::map<std::string, double>& seconds() const { return seconds_; }

 private:
  struct Entry {
    std::shared_ptr<void> result;
    std::string_view name;
    bool cfgOnly;
  };
  const Function& f_;
  std::unordered_map<std::type_index, Entry> results_;
  unsigned computed_ = 0;
  std::map<std::string, unsigned> runs_;
  std::map<std::string, double> seconds_;
};

// After a pass that claims to have kept the cached analyses of `am`: each one that can be
// printed (and the CFG) is computed again from scratch and compared with the cached result.
// Returns the names of those that no longer match (--verify-each).
std::vector<std::string> staleAnalyses(const Function& f, FunctionAnalysisManager& am);

}  // namespace ptxopt
