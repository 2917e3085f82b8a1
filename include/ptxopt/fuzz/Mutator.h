// The mutator: broken variants of valid PTX, for measuring how often ptxopt and ptxas agree on
// what is malformed (ptxfuzz mutate). Each mutant changes one instruction line (or one brace)
// of the text in one way, named by its kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxopt::fuzz {

enum class MutationKind : uint8_t {
  DropOperand,         // one operand removed
  AddOperand,          // one operand repeated
  OperandKind,         // an operand replaced by one of another kind (immediate, predicate, vector, address, special register)
  UndeclaredRegister,  // a register replaced by one nobody declares
  TypeSuffix,          // a type modifier replaced (.s32 -> .u32, .q32, .f64 ...)
  SpaceSuffix,         // a state-space modifier replaced (.global -> .shared, .globl ...)
  MissingLabel,        // a branch to a label that does not exist
  UnbalancedBraces,    // a `{` or `}` removed or added
  NumKinds
};
const char* mutationKindName(MutationKind k);
std::optional<MutationKind> parseMutationKind(const std::string& name);
// The kinds for which ptxopt must reject (nearly) everything ptxas rejects.
bool mustAgreeOnRejection(MutationKind k);

struct Mutant {
  MutationKind kind = MutationKind::DropOperand;
  std::string text;         // the whole mutated module
  uint32_t line = 0;        // 1-based line that changed
  std::string before, after;  // that line before and after
};

// One mutant of `ptx` chosen by `seed` (of `kind` when given); false when the text offers no
// place for that kind of mutation. Same seed, same mutant.
bool mutatePtx(const std::string& ptx, uint64_t seed, std::optional<MutationKind> kind, Mutant& out);

// A mutation campaign: `count` mutants of the given files (kinds in turn, files and places by
// seed), each judged by ptxas and by ptxopt (parse and verify); the two must agree.
struct MutationCampaignOptions {
  std::vector<std::string> files;  // valid PTX, each accepted by ptxas as it is
  uint64_t count = 0;
  uint64_t seed = 1;
  std::string ptxas;               // required
  unsigned jobs = 1;
  std::string outDir;              // disagreements are written here when not empty
};

struct MutationCounts {
  uint64_t mutants = 0;
  uint64_t ptxasRejects = 0;
  uint64_t ptxoptRejects = 0;
  uint64_t bothReject = 0;
  uint64_t missed = 0;         // ptxas rejects, ptxopt accepts
  uint64_t falseRejects = 0;   // ptxas accepts, ptxopt rejects
};

struct MutationReport {
  MutationCounts byKind[static_cast<size_t>(MutationKind::NumKinds)];
  std::vector<std::string> disagreements;  // "file:line kind: before -> after (who rejects: message)"
  double seconds = 0;
};

MutationReport runMutationCampaign(const MutationCampaignOptions& options);
// A table per kind: mutants, rejected by ptxas, by ptxopt, and the agreement figures.
std::string mutationTable(const MutationReport& r);

}  // namespace ptxopt::fuzz
