// Lazily computed, cached analyses of one function (the SPIRV-Tools IRContext idea): a pass
// asks for what it needs; when it reports a change, every cached result is dropped.
//
// An analysis is a class with `using Result = ...;`, `static constexpr const char* kName`, and
// `static Result run(const Function&, FunctionAnalysisManager&)`.
#pragma once

#include <memory>
#include <typeindex>
#include <unordered_map>

#include "ptxopt/ir/Function.h"

namespace ptxopt {

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
      auto result = std::make_shared<typename A::Result>(A::run(f_, *this));
      it = results_.emplace(key, std::shared_ptr<void>(result, result.get())).first;
      ++computed_;
    }
    return *static_cast<const typename A::Result*>(it->second.get());
  }
  template <typename A>
  bool cached() const {
    return results_.count(std::type_index(typeid(A))) != 0;
  }
  void invalidateAll() { results_.clear(); }
  // How many analysis results were computed so far (for tests of laziness and invalidation).
  unsigned computedCount() const { return computed_; }

 private:
  const Function& f_;
  std::unordered_map<std::type_index, std::shared_ptr<void>> results_;
  unsigned computed_ = 0;
};

}  // namespace ptxopt
