// Strongly connected components (Tarjan), iterative so that deep graphs do not exhaust the
// stack. The analyses that summarize cyclic structures (reaching definitions over merge
// values, the uniformity analysis's regions) share this one implementation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxopt {

// Per-node bookkeeping over dense ids 0..n-1.
class DenseSccState {
 public:
  explicit DenseSccState(uint32_t n) : index_(n, kNone), low_(n, 0), onStack_(n, 0) {}
  bool seen(uint32_t v) const { return index_[v] != kNone; }
  uint32_t index(uint32_t v) const { return index_[v]; }
  void visit(uint32_t v, uint32_t i) { index_[v] = low_[v] = i; }
  uint32_t& low(uint32_t v) { return low_[v]; }
  uint8_t& onStack(uint32_t v) { return onStack_[v]; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> index_, low_;
  std::vector<uint8_t> onStack_;
};

// The same over a few nodes of a large id range (a subgraph searched many times).
class SparseSccState {
 public:
  bool seen(uint32_t v) const { return index_.count(v) != 0; }
  uint32_t index(uint32_t v) const { return index_.at(v); }
  void visit(uint32_t v, uint32_t i) { index_[v] = low_[v] = i; }
  uint32_t& low(uint32_t v) { return low_[v]; }
  uint8_t& onStack(uint32_t v) { return onStack_[v]; }

 private:
  std::unordered_map<uint32_t, uint32_t> index_, low_;
  std::unordered_map<uint32_t, uint8_t> onStack_;
};

// Visits the graph from each of `starts` in order (a start already seen is skipped).
// `successors(v)` returns the successors of v that belong to the graph (a range of uint32_t that
// stays valid while the search runs: a std::vector<uint32_t>, or a span into the caller's data);
// `component(members)` is called once per component, in the order Tarjan finishes them: every
// component that an edge of a member leads into (outside the component) was reported before.
template <typename State, typename Starts, typename Successors, typename OnComponent>
void forEachScc(State& state, const Starts& starts, Successors&& successors, OnComponent&& component) {
  uint32_t clock = 0;
  std::vector<uint32_t> stack, members;
  using Succ = std::decay_t<decltype(successors(uint32_t{}))>;
  struct Frame {
    uint32_t v;
    size_t next;
    Succ succ;
  };
  std::vector<Frame> call;
  auto enter = [&](uint32_t v) {
    state.visit(v, clock++);
    stack.push_back(v);
    state.onStack(v) = 1;
    call.push_back(Frame{v, 0, successors(v)});
  };
  for (uint32_t s0 : starts) {
    if (state.seen(s0)) continue;
    enter(s0);
    while (!call.empty()) {
      Frame& f = call.back();
      if (f.next < f.succ.size()) {
        uint32_t v = f.v, w = f.succ[f.next++];
        if (!state.seen(w)) {
          enter(w);  // invalidates `f`
        } else if (state.onStack(w)) {
          state.low(v) = std::min(state.low(v), state.index(w));
        }
        continue;
      }
      uint32_t done = f.v;
      call.pop_back();
      if (!call.empty()) state.low(call.back().v) = std::min(state.low(call.back().v), state.low(done));
      if (state.low(done) != state.index(done)) continue;
      members.clear();
      uint32_t w;
      do {
        w = stack.back();
        stack.pop_back();
        state.onStack(w) = 0;
        members.push_back(w);
      } while (w != done);
      component(static_cast<const std::vector<uint32_t>&>(members));
    }
  }
}

}  // namespace ptxopt
