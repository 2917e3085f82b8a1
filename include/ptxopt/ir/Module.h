// A PTX module: everything of one file, in source order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptxopt/ir/Function.h"
#include "ptxopt/ir/Variable.h"
#include "ptxopt/support/StringPool.h"

namespace ptxopt {

struct FileDirective {
  uint32_t index = 0;
  uint32_t path = 0;   // pool id, without quotes
  uint32_t extra = 0;  // pool id of `, timestamp, size`; 0 if none
};

// A `.section` with DWARF data lines; the lines are kept as written (normalized spacing).
struct Section {
  uint32_t name = 0;  // pool id of ".debug_info"
  std::vector<uint32_t> lines;  // pool ids, one per data line or label
};

struct TopItem {
  enum class Kind : uint8_t { Version, Target, AddressSize, File, Section, Variable, Function, Raw };
  Kind kind;
  uint32_t index;  // into files / sections / globals / functions / raw, by kind
};

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  std::string fileName;  // for diagnostics
  uint32_t versionMajor = 0, versionMinor = 0;
  std::vector<uint32_t> targets;  // pool ids: "sm_90", "debug", "texmode_independent"
  uint32_t addressSize = 0;       // 0 when the directive is absent
  size_t sourceBytes = 0;         // size of the parsed text (the printer reserves about this much)

  StringPool& strings() { return strings_; }
  const StringPool& strings() const { return strings_; }
  std::string_view str(uint32_t id) const { return strings_.str(id); }
  uint32_t intern(std::string_view s) { return strings_.intern(s); }

  std::vector<TopItem>& items() { return items_; }
  const std::vector<TopItem>& items() const { return items_; }
  std::vector<std::unique_ptr<Function>>& functions() { return functions_; }
  const std::vector<std::unique_ptr<Function>>& functions() const { return functions_; }
  std::vector<Variable>& globals() { return globals_; }
  const std::vector<Variable>& globals() const { return globals_; }
  std::vector<FileDirective>& files() { return files_; }
  const std::vector<FileDirective>& files() const { return files_; }
  std::vector<Section>& sections() { return sections_; }
  const std::vector<Section>& sections() const { return sections_; }
  // Module-level statements kept verbatim (`.pragma`, `.alias`), pool ids of their text.
  std::vector<uint32_t>& raw() { return raw_; }
  const std::vector<uint32_t>& raw() const { return raw_; }

  Function* addFunction(uint32_t name);
  // The definition (with a body) of the function named `name`, else its declaration.
  Function* findFunction(std::string_view name) const;

 private:
  StringPool strings_;
  std::vector<TopItem> items_;
  std::vector<std::unique_ptr<Function>> functions_;
  std::vector<Variable> globals_;
  std::vector<FileDirective> files_;
  std::vector<Section> sections_;
  std::vector<uint32_t> raw_;
};

}  // namespace ptxopt
