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
// Lines are the PTX lines of the file that ran: profile and optimize the same file. A profile
// written by ptxrun also names the module each entry belongs to by its text hash (ptxTextHash):
//   "modules": {"3f0c...": "k.ptx"}, and "module": "3f0c..." in each branch entry.
// A reader takes the entries of the module it optimizes (and those that name no module), and
// says so when the profile names modules but not this one: lines of another text would steer
// the cost models by the wrong branches. Hand-written profiles may leave modules out.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  std::string module;  // ptxTextHash of the file that ran (empty: not recorded)
  std::map<std::pair<std::string, uint32_t>, BranchCounts> branches;  // (function, line)
  // When read from a file: every module the file names (hash -> name), this one's or not.
  std::map<std::string, std::string> modulesInFile;

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

// A PTX text's identity: a 64-bit FNV-1a hash, as 16 hex digits, of the text without comments,
// spaces and tabs (line breaks kept, so equal hashes mean equal line numbers). nvcc embeds in a
// fat binary the text `nvcc -ptx` writes with comments blanked and whitespace collapsed: both
// hash the same, so a profile recorded by `ptxrun exec` applies to `nvcc -ptx`'s file.
std::string ptxTextHash(std::string_view text);

std::string branchProfileJson(const BranchProfile& p);
// Several modules' profiles in one file (`ptxrun exec`): each entry names its module.
std::string branchProfilesJson(const std::vector<BranchProfile>& profiles, std::string_view ptx, std::string_view kernel);
// Reads a profile; on failure `error` is "PATH:LINE:COL: error: ..." (or "PATH: error: ...").
// With `onlyModule` (a ptxTextHash), entries that name another module are left out.
bool parseBranchProfile(const std::string& text, const std::string& path, BranchProfile& out, std::string& error,
                        std::string_view onlyModule = {});

// Profile entries that name no conditional branch or brx.idx of `m`, as "function line N"
// (a profile of another file, or of the file before it changed).
std::vector<std::string> unmatchedProfileEntries(const BranchProfile& p, const Module& m);

}  // namespace ptxopt
