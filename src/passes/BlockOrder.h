// Sets and maps of one function's blocks in block-id order (issue #32, item 5).
//
// A std::set or std::map keyed by BasicBlock* orders its blocks by address, and an unordered
// one by a hash of the address; addresses change with the allocator, ASLR and -j (blocks a pass
// creates on a worker thread come from that thread's heap). Whatever such a container's
// iteration order reaches, label numbers, the order of an or.pred chain, the line a remark
// names, would then change from run to run. A block's id is dense, stable and never reused
// within its function (Function::createBlock), so iterating by id gives the same order on
// every run: the parser's blocks in layout order, then the passes' in the order they made them.
// Lookups alone do not need this; a container whose order can reach the output does.
#pragma once

#include <map>
#include <set>

#include "ptxopt/ir/Function.h"

namespace ptxopt {

// Orders blocks of one function by id (blocks of different functions may share an id).
struct BlockIdLess {
  bool operator()(const BasicBlock* a, const BasicBlock* b) const { return a->id() < b->id(); }
};

using BlockSet = std::set<BasicBlock*, BlockIdLess>;
template <class T>
using BlockMap = std::map<BasicBlock*, T, BlockIdLess>;

}  // namespace ptxopt
