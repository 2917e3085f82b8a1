// switch-opt's choice (docs/passes/switch-opt.md): what the pass read of one switch
// (SwitchShape, filled by SwitchOpt.cpp's analyze), the lowerings it can pick, and the policy
// that picks one (choose), with the reason its remark gives. choose reads only the shape and
// the knobs, changes nothing, and is tested on hand-made shapes (tests/unit/PassHelpersTest.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "BlockOrder.h"
#include "SwitchCosts.h"
#include "SwitchPredicated.h"
#include "SwitchTree.h"
#include "SwitchValueTable.h"

namespace ptxopt::switchopt {

enum class Lowering {
  Keep,          // the tree stays (a refusal)
  ValueTable,    // a table of the cases' constants and loads (SwitchValueTable.h)
  Table,         // a jump table: index, range check, brx.idx
  HotFirst,      // a jump table behind a test of the hottest run (profile)
  Predicate,     // straight-line code, every case guarded (SwitchPredicated.h)
  BalancedTree,  // a balanced search tree over the runs
  Cascade,       // one test per run, in value order
};

// The knob `lowering`: nullopt for `auto`, else the lowering it forces (`table`, `bst`,
// `cascade`, `predicate`).
std::optional<Lowering> parseLowering(std::string_view knob);

// One switch as analyze read it: the tree, its runs and default, and every fact the choice
// reads. The plans (value table, predicated switch) and the profile's figures are made only where
// the choice can read them: not for a switch that `blocked` or refusedOnCost rules out, the
// predicated switch only where mayPredicate, the profile's figures only in auto.
struct SwitchShape {
  // The tree.
  size_t rootIndex = 0;                  // the root block's place in the layout
  BasicBlock* rootBlock = nullptr;
  SwitchNode root;
  NodesByBlock tests;                    // the nodes, by block
  bool brxRoot = false;                  // the root is a brx.idx (bounded by an and/rem)
  // The values.
  std::vector<Run> runs;                 // consecutive values with one target other than the default
  BasicBlock* dflt = nullptr;
  int64_t ncases = 0, first = 0, last = 0, span = 0;
  double density = 0;
  std::map<int64_t, BasicBlock*> cases;  // each value of the span and its target, when span fits max-span
  BlockSet targets;                      // the default and the runs' targets
  std::string where;                     // the switch, as its remarks describe it
  // What the choice reads.
  std::string tableWhy;                  // what the cost model holds against a table (empty: nothing)
  bool tableFits = false;                // span within max-span
  bool divergent = false;                // the selector may differ between a warp's lanes
  bool profiled = false;                 // the profile has counts for the root's branch
  std::string blocked, blockedWhy;       // a reason no lowering may take it (live, entry) and its text
  bool bitTests = false;                 // some node is one of LLVM's bit tests
  bool rangeCheckBrx = false;            // two nodes, one a brx.idx: a range check and its table
  unsigned longestPath = 0;              // tests on the tree's longest path
  unsigned balancedDepth = 0;            // tests on a balanced search tree's longest path
  // The branch-free lowerings' plans, or why there is none.
  std::optional<ValueTable> valueTable;
  std::string valueTableWhy;
  std::optional<PredicatedSwitch> predicated;
  std::string predicatedWhy;
  unsigned predicateCost = 0;            // the predicates' instructions (planPredicates)
  unsigned branchingCost = 0;            // a table's branching: its fixed part and a jump per target
  std::optional<uint32_t> selectorConstantLine;  // the last `mov` of a constant to the selector
  std::optional<ProfileCosts> profile;   // the profile's figures, when it knows every test
};

// The knobs the choice reads.
struct SwitchPolicy {
  std::optional<Lowering> forced;  // `lowering`; nullopt: auto
  int64_t predicateLimit = 32, bstGain = 2;
  bool valueTables = true;
};

struct Choice {
  Lowering lowering = Lowering::Keep;
  std::string refused;  // Keep: the reason (counter `refused-<reason>`)
  std::string why;      // Keep: the remark's text; Predicate: what it says in parentheses
  std::string where;    // the switch as its remarks describe it, with what the choice added
  long hotRun = -1;     // HotFirst: the run tested first
  bool byProfile = false;
  // Remarks made on the way, before the lowering's own (`no-predicate`, `no-value-table`):
  // decision and reason.
  std::vector<std::pair<std::string, std::string>> notes;
};

// The lowering for switch `s` under knobs `p`.
Choice choose(const SwitchShape& s, const SwitchPolicy& p);

// The two facts analyze needs of the policy before it plans (plans are made only where the
// choice can read them): whether the predicated form may be tried (forced, or auto on a
// divergent selector with predicate-limit above 0) or weighed (auto with the root's counts), and
// whether the first step refuses the switch on cost before it reads any plan.
bool mayPredicate(const SwitchShape& s, const SwitchPolicy& p);
bool refusedOnCost(const SwitchShape& s, const SwitchPolicy& p);

}  // namespace ptxopt::switchopt
