// Branch profiles: how each conditional branch and each brx.idx of a PTX file behaved in a
// launch, counted per warp execution. `ptxrun --profile-out=FILE` writes one; `ptxopt
// --profile-use=FILE` gives it to the passes (PassContext::profile), whose cost models weigh
// both forms of a region by how often its branch really diverged.
//
// The file is JSON:
//   {"format": "ptxopt-branch-profile", "version": 1, "ptx": "k.ptx", "kernel": "k",
//    "branches": [{"function": "k", "line": 42, "kind": "bra",
//                  "all_taken": 10, "all_not_taken": 3, "divergent": 5},
//                 {"function": "k", "line": 57, "kind": "brx.idx",
//                  "distinct_targets": {"1": 12, "3": 4}}]}
// Lines are the PTX lines of the file that ran: profile and optimize the same file.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <string>
#include <string_view>
#include <utility>

#include "ptxopt/ir/Module.h"

namespace ptxopt {

struct BranchCounts {
  bool indirect = false;      // brx.idx
  // bra (guarded): warp executions in which every active lane jumped, none did, or some did.
  uint64_t allTaken = 0, allNotTaken = 0, divergent = 0;
  // brx.idx: warp executions by the number of distinct places the active lanes went (lanes a
  // guard turned off fall through: one more place).
  std::map<uint32_t, uint64_t> distinctTargets;

  uint64_t executions() const;
  // The fraction of executions in which the warp split; 0 when it never ran.
  double divergentFraction() const;
  void add(const BranchCounts& o);
};

struct BranchProfile {
  std::string ptx;     // the file that ran
  std::string kernel;  // the kernel launched
  std::map<std::pair<std::string, uint32_t>, BranchCounts> branches;  // (function, line)

  const BranchCounts* find(std::string_view function, uint32_t line) const;
};

// The conditional branches and brx.idx of `m` (the branches a profile can describe), each with
// zero counts, keyed by (function, line).
BranchProfile emptyProfile(const Module& m);

// A profile's counts bound to the branch instructions of one function (those emptyProfile
// lists), by their PTX line, while the function is still the input: an instruction a pass
// creates later has no entry, even where it takes the source line of one it replaces.
using BranchCountsByInstruction = std::unordered_map<const Instruction*, const BranchCounts*>;
BranchCountsByInstruction bindToInstructions(const BranchProfile& p, const Function& f);

// The profile of one launch of `m`: every branch the module has, with the outcomes the run
// counted at its PTX line (emu::Metrics::branchOutcomes; lines are unique in a file).
BranchProfile profileFromOutcomes(const Module& m, const std::map<uint32_t, BranchCounts>& byLine);

std::string branchProfileJson(const BranchProfile& p);
// Reads a profile; on failure `error` is "PATH:LINE:COL: error: ..." (or "PATH: error: ...").
bool parseBranchProfile(const std::string& text, const std::string& path, BranchProfile& out, std::string& error);

// Profile entries that name no conditional branch or brx.idx of `m`, as "function line N"
// (a profile of another file, or of the file before it changed).
std::vector<std::string> unmatchedProfileEntries(const BranchProfile& p, const Module& m);

}  // namespace ptxopt
