// switch-opt's choice: see SwitchChoice.h. The policy, in the order choose applies it:
//  1. what no lowering takes: in auto, a switch on a divergent selector that the table cost
//     model refuses, when neither predication (`predicate-limit` 0) nor a profile may take it;
//     a forced `table` over `max-span`; a tree whose nodes' values are read later or one of
//     whose cases is the entry block;
//  2. auto with a branch profile that knows every test: the form with the fewest expected warp
//     instructions (SwitchCosts.h) among value table, jump table, jump table testing its hot
//     run first (`hot-first`), predicated switch, balanced search tree (uniform selector), or
//     the tree;
//  3. auto otherwise: a value table when the cost model allows a table and every case only
//     assigns constants;
//  4. then, on a divergent selector (auto) or forced `predicate`: a predicated switch. Forced,
//     wherever one is planned (or kept); auto, when the cost model allows a table, the bodies
//     hold at most `predicate-limit` instructions, no `mov` in the function writes a constant to
//     the selector, and the predicates cost less than a table's branching; a divergent switch
//     the cost model refuses is then kept;
//  5. then, in auto, a root brx.idx (a jump table already) and a tree with LLVM's bit tests
//     are kept, and a switch the cost model refuses becomes a balanced search tree when that
//     saves `bst-gain` tests on the longest path, and is kept otherwise;
//  6. forced `bst` or `cascade`: that tree;
//  7. last, unless the tree is a root brx.idx or a range check and a brx.idx alone (a jump
//     table already), a jump table; also where a value table was planned, when the profile
//     picked a jump table or `table` is forced.
#include "SwitchChoice.h"

#include <algorithm>

#include "ptxopt/passes/PtxasModel.h"

namespace ptxopt::switchopt {

namespace {

const char* const kBrxAlready = "a brx.idx whose index an and or rem keeps in its table: a jump table already";

Choice keep(Choice c, std::string reason, std::string why) {
  c.lowering = Lowering::Keep;
  c.refused = std::move(reason);
  c.why = std::move(why);
  return c;
}

Choice take(Choice c, Lowering l, std::string why = "") {
  c.lowering = l;
  c.why = std::move(why);
  return c;
}

// The jump table (`Table` or `HotFirst`), unless the tree is one already. Where a value table
// was planned it lost to the jump table (the profile's figures, or a forced `table`); where none
// was, the remark `no-value-table` says why.
Choice jumpTable(const SwitchShape& s, const SwitchPolicy& p, Choice c, Lowering l) {
  if (p.valueTables && !s.valueTable) c.notes.push_back({"no-value-table", c.where + ": " + s.valueTableWhy});
  if (s.brxRoot) return keep(std::move(c), "table", kBrxAlready);
  if (s.rangeCheckBrx) return keep(std::move(c), "table", "a range check and a brx.idx: a jump table already");
  return take(std::move(c), l);
}

// With a profile (auto): the lowering with the fewest expected warp instructions. On a tie the
// earlier wins: the value table, then the jump table (tied with the predicated form on
// switch_holes before case masks, it measured 201 against 220), then the predicated switch,
// then the trees.
Choice byProfile(const SwitchShape& s, const SwitchPolicy& p, Choice c) {
  const ProfileCosts& pc = *s.profile;
  std::vector<std::pair<double, Lowering>> options;
  if (s.valueTable) options.push_back({pc.valueTable, Lowering::ValueTable});
  if (s.tableFits && !s.brxRoot) options.push_back({pc.table, Lowering::Table});
  if (s.tableFits && !s.brxRoot && pc.hotRun >= 0) options.push_back({pc.hot, Lowering::HotFirst});
  if (s.predicated) options.push_back({pc.predicate, Lowering::Predicate});
  if (!s.divergent && !s.brxRoot) options.push_back({pc.bst, Lowering::BalancedTree});
  options.push_back({pc.tree, Lowering::Keep});
  std::stable_sort(options.begin(), options.end(), [](auto& a, auto& b) { return a.first < b.first; });
  auto name = [](Lowering l) {
    switch (l) {
      case Lowering::ValueTable: return "value-table";
      case Lowering::Table: return "table";
      case Lowering::HotFirst: return "hot-first";
      case Lowering::Predicate: return "predicate";
      case Lowering::BalancedTree: return "bst";
      default: return "keep";
    }
  };
  std::string figures;
  for (auto& [cost, l] : options) figures += (figures.empty() ? "" : ", ") + std::string(name(l)) + " " + std::to_string(int64_t(cost));
  c.where += " (profile, expected warp instructions: " + figures + ")";
  c.byProfile = true;
  switch (const Lowering pick = options.front().second) {
    case Lowering::Keep: return keep(std::move(c), "profile", s.brxRoot ? "the brx.idx costs least" : "the tree costs least");
    case Lowering::Predicate: return take(std::move(c), pick, "the profile");
    case Lowering::HotFirst: {
      const Run& h = s.runs[size_t(pc.hotRun)];
      c.hotRun = pc.hotRun;
      c.where += ", the run " + std::to_string(h.lo) + ".." + std::to_string(h.hi) + " tested first";
      return jumpTable(s, p, std::move(c), pick);
    }
    case Lowering::Table: return jumpTable(s, p, std::move(c), pick);
    default: return take(std::move(c), pick);  // the value table, the balanced tree
  }
}

// Why the switch is not predicated (empty: it is). Forced `predicate` takes any plan; auto
// asks more, and on success adds the predicates' cost to the description.
std::string whyNotPredicated(const SwitchShape& s, const SwitchPolicy& p, Choice& c) {
  if (!s.predicated) return s.predicatedWhy;
  if (p.forced) return "";
  if (s.predicated->size > p.predicateLimit)
    return std::to_string(s.predicated->size) + " instructions in the bodies against predicate-limit " + std::to_string(p.predicateLimit);
  // A selector that some path sets to a constant: ptxas threads those paths straight to
  // their cases (sparse_switch), where predication would make them run every case.
  if (s.selectorConstantLine)
    return "the selector is a constant on the path through line " + std::to_string(*s.selectorConstantLine) +
           "; ptxas threads such paths to their case";
  // Only a switch dense enough for a table: the lanes of a warp spread over a sparse switch's
  // few hit values less (sparse_switch), and only a profile tells.
  if (!s.tableWhy.empty()) return s.tableWhy + " (a sparse switch is predicated only with a profile)";
  // Then the predicates must cost less than the branching they replace, for a warp whose
  // lanes reach every target (each body runs either way): a table's fixed part and a jump
  // per target to the join, or a tree's setp and bra per test, a jump per target and the
  // reconvergence.
  if (s.predicateCost >= s.branchingCost)
    return std::to_string(s.predicateCost) + " instructions of predicates against " + std::to_string(s.branchingCost) +
           " of branching (a table)";
  c.where += ", " + std::to_string(s.predicateCost) + " instructions of predicates against " + std::to_string(s.branchingCost) +
             " of branching";
  return "";
}

// A switch the table's cost model refused (auto): rebuilt as a balanced search tree when that
// saves `bst-gain` tests on the longest path, else kept.
Choice searchTreeOrKeep(const SwitchShape& s, const SwitchPolicy& p, Choice c) {
  if (s.balancedDepth + unsigned(p.bstGain) > s.longestPath)
    return keep(std::move(c), "cost",
                s.tableWhy + "; a balanced tree would test " + std::to_string(s.balancedDepth) + " times on its longest path, the tree " +
                    std::to_string(s.longestPath));
  c.where += ", longest path " + std::to_string(s.longestPath) + " tests";
  return take(std::move(c), Lowering::BalancedTree);
}

}  // namespace

std::optional<Lowering> parseLowering(std::string_view knob) {
  if (knob == "table") return Lowering::Table;
  if (knob == "bst") return Lowering::BalancedTree;
  if (knob == "cascade") return Lowering::Cascade;
  if (knob == "predicate") return Lowering::Predicate;
  return std::nullopt;  // auto
}

namespace {

bool tryPredicate(const SwitchShape& s, const SwitchPolicy& p) {
  return p.forced == Lowering::Predicate || (!p.forced && s.divergent && p.predicateLimit > 0);
}

}  // namespace

bool mayPredicate(const SwitchShape& s, const SwitchPolicy& p) { return tryPredicate(s, p) || (!p.forced && s.profiled); }

bool refusedOnCost(const SwitchShape& s, const SwitchPolicy& p) {
  return !p.forced && !s.tableWhy.empty() && s.divergent && !mayPredicate(s, p);
}

Choice choose(const SwitchShape& s, const SwitchPolicy& p) {
  Choice c;
  c.where = s.where;
  const bool automatic = !p.forced;

  // 1. What no lowering takes.
  if (refusedOnCost(s, p)) return keep(std::move(c), "cost", s.tableWhy);
  if (p.forced == Lowering::Table && !s.tableFits) return keep(std::move(c), "cost", s.tableWhy);
  if (!s.blocked.empty()) return keep(std::move(c), s.blocked, s.blockedWhy);

  // 2. With a profile: the cheapest.
  if (automatic && s.profile) return byProfile(s, p, std::move(c));

  // 3. Value tables first: no control flow and the fewest instructions.
  if (automatic && s.tableWhy.empty() && s.valueTable) return take(std::move(c), Lowering::ValueTable);

  // 4. Predication: every case body, guarded by its own predicate, in one straight line.
  if (tryPredicate(s, p)) {
    std::string why = whyNotPredicated(s, p, c);
    if (s.predicated && why.empty()) return take(std::move(c), Lowering::Predicate, s.divergent ? "divergent selector" : "uniform selector");
    if (p.forced) return keep(std::move(c), "predicate", why);
    c.notes.push_back({"no-predicate", c.where + ": " + why});
    if (!s.tableWhy.empty() && s.divergent) return keep(std::move(c), "cost", s.tableWhy);
  }

  // 5. auto: what is a jump table already or tests once per target, and the trees the cost
  // model refuses a table.
  if (automatic) {
    // A brx.idx kept in range by an and/rem is a jump table already; a compare tree would only
    // add tests.
    if (s.brxRoot) return keep(std::move(c), "table", kBrxAlready);
    // LLVM's bit tests already test once per target (shl, and, setp): measured on a clang
    // kernel with two targets over eleven values, a jump table costs 100 estimated SASS
    // instructions where the bit tests, which ptxas then if-converts, cost 84 (predicated with
    // case masks, which auto tries first on a divergent selector, 80).
    if (s.bitTests) return keep(std::move(c), "bit-tests", "LLVM's bit tests test once per target already");
    if (!s.tableWhy.empty()) return searchTreeOrKeep(s, p, std::move(c));
  }

  // 6. Forced compare trees.
  if (p.forced == Lowering::BalancedTree || p.forced == Lowering::Cascade) return take(std::move(c), *p.forced);

  // 7. The jump table.
  return jumpTable(s, p, std::move(c), Lowering::Table);
}

}  // namespace ptxopt::switchopt
