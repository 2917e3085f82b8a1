#include "ptxopt/analysis/Profile.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace ptxopt {

uint64_t BranchCounts::executions() const {
  uint64_t n = allTaken + allNotTaken + divergent;
  for (const auto& [k, c] : distinctTargets) n += c;
  return n;
}

double BranchCounts::divergentFraction() const {
  uint64_t n = executions();
  if (n == 0) return 0;
  uint64_t split = divergent;
  for (const auto& [k, c] : distinctTargets)
    if (k > 1) split += c;
  return static_cast<double>(split) / static_cast<double>(n);
}

void BranchCounts::add(const BranchCounts& o) {
  indirect = indirect || o.indirect;
  allTaken += o.allTaken;
  allNotTaken += o.allNotTaken;
  divergent += o.divergent;
  for (const auto& [k, c] : o.distinctTargets) distinctTargets[k] += c;
}

const BranchCounts* BranchProfile::find(std::string_view function, uint32_t line) const {
  auto it = branches.find({std::string(function), line});
  return it == branches.end() ? nullptr : &it->second;
}

namespace {

// A branch a profile describes: a guarded bra, or a brx.idx.
bool isProfiledBranch(const Instruction& i) {
  return (i.is(Opcode::Bra) && i.hasGuard()) || i.is(Opcode::BrxIdx);
}

}  // namespace

BranchProfile emptyProfile(const Module& m) {
  BranchProfile p;
  for (const auto& f : m.functions())
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts())
        if (isProfiledBranch(*i)) p.branches[{std::string(f->name()), i->loc().line}].indirect = i->is(Opcode::BrxIdx);
  return p;
}

BranchCountsByInstruction bindToInstructions(const BranchProfile& p, const Function& f) {
  BranchCountsByInstruction out;
  for (const BasicBlock* b : f.blocks())
    for (const Instruction* i : b->insts())
      if (isProfiledBranch(*i))
        if (const BranchCounts* c = p.find(f.name(), i->loc().line)) out.emplace(i, c);
  return out;
}

BranchProfile profileFromOutcomes(const Module& m, const std::map<uint32_t, BranchCounts>& byLine) {
  BranchProfile p = emptyProfile(m);
  for (auto& [key, c] : p.branches)
    if (auto it = byLine.find(key.second); it != byLine.end()) c.add(it->second);
  return p;
}

std::string ptxTextHash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](char c) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  };
  for (size_t k = 0; k < text.size(); ++k) {
    char c = text[k];
    if (c == '"') {  // a string (.file's path may hold "//"): as it is
      size_t end = text.find('"', k + 1);
      if (end == std::string_view::npos) end = text.size() - 1;
      for (; k <= end; ++k) mix(text[k]);
      --k;
    } else if (c == '/' && k + 1 < text.size() && text[k + 1] == '/') {
      while (k + 1 < text.size() && text[k + 1] != '\n') ++k;
    } else if (c == '/' && k + 1 < text.size() && text[k + 1] == '*') {
      size_t end = text.find("*/", k + 2);
      size_t stop = end == std::string_view::npos ? text.size() : end + 2;
      for (size_t n = k; n < stop; ++n)  // the line breaks inside stay
        if (text[n] == '\n') mix('\n');
      k = stop - 1;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\0') {
      mix(c);
    }
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {

nlohmann::ordered_json branchEntry(const std::string& module, const std::pair<std::string, uint32_t>& key,
                                   const BranchCounts& c) {
  nlohmann::ordered_json b;
  if (!module.empty()) b["module"] = module;
  b["function"] = key.first;
  b["line"] = key.second;
  b["kind"] = c.indirect ? "brx.idx" : "bra";
  if (c.indirect) {
    b["distinct_targets"] = nlohmann::ordered_json::object();
    for (const auto& [k, n] : c.distinctTargets) b["distinct_targets"][std::to_string(k)] = n;
  } else {
    b["all_taken"] = c.allTaken;
    b["all_not_taken"] = c.allNotTaken;
    b["divergent"] = c.divergent;
  }
  return b;
}

}  // namespace

std::string branchProfilesJson(const std::vector<BranchProfile>& profiles, std::string_view ptx, std::string_view kernel) {
  nlohmann::ordered_json j;
  j["format"] = "ptxopt-branch-profile";
  j["version"] = 1;
  j["ptx"] = ptx;
  j["kernel"] = kernel;
  nlohmann::ordered_json modules = nlohmann::ordered_json::object();
  for (const BranchProfile& p : profiles)
    if (!p.module.empty()) modules[p.module] = p.ptx;
  if (!modules.empty()) j["modules"] = modules;
  j["branches"] = nlohmann::ordered_json::array();
  for (const BranchProfile& p : profiles)
    for (const auto& [key, c] : p.branches) j["branches"].push_back(branchEntry(p.module, key, c));
  return j.dump(1) + "\n";
}

std::string branchProfileJson(const BranchProfile& p) { return branchProfilesJson({p}, p.ptx, p.kernel); }

bool parseBranchProfile(const std::string& text, const std::string& path, BranchProfile& out, std::string& error,
                        std::string_view onlyModule) {
  out = BranchProfile{};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The byte the parser stopped at, as a line and column.
    size_t at = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    size_t line = 1, col = 1;
    for (size_t k = 0; k < at; ++k) {
      if (text[k] == '\n') ++line, col = 1;
      else ++col;
    }
    std::string what = e.what();
    size_t colon = what.rfind(": ");
    error = path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: not JSON: " +
            (colon == std::string::npos ? what : what.substr(colon + 2));
    return false;
  }
  auto fail = [&](const std::string& why) {
    error = path + ": error: " + why;
    return false;
  };
  if (!j.is_object() || j.value("format", "") != "ptxopt-branch-profile")
    return fail("not a branch profile (\"format\": \"ptxopt-branch-profile\" is missing; ptxrun --profile-out writes one)");
  if (j.value("version", 0) != 1) return fail("branch profile version " + j.value("version", nlohmann::json(0)).dump() + " (this ptxopt reads version 1)");
  out.ptx = j.value("ptx", "");
  out.kernel = j.value("kernel", "");
  if (j.contains("modules")) {
    if (!j["modules"].is_object()) return fail("\"modules\" must be an object (text hash -> module name)");
    for (const auto& [hash, name] : j["modules"].items())
      out.modulesInFile[hash] = name.is_string() ? name.get<std::string>() : name.dump();
    if (out.modulesInFile.size() == 1) out.module = out.modulesInFile.begin()->first;
  }
  if (!j.contains("branches") || !j["branches"].is_array()) return fail("\"branches\" must be an array");
  size_t index = 0;
  for (const auto& b : j["branches"]) {
    std::string where = "branch " + std::to_string(index++);
    auto count = [&](const nlohmann::json& v, const std::string& name, uint64_t& to) {
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
        error = path + ": error: " + where + ": \"" + name + "\" must be a count (an integer >= 0)";
        return false;
      }
      to = v.get<uint64_t>();
      return true;
    };
    if (!b.is_object() || !b.contains("function") || !b["function"].is_string() || !b.contains("line") ||
        !b["line"].is_number_unsigned())
      return fail(where + ": needs \"function\" (a name) and \"line\" (a number)");
    std::string module;
    if (b.contains("module")) {
      if (!b["module"].is_string()) return fail(where + ": \"module\" must be a text hash (a string)");
      module = b["module"].get<std::string>();
    }
    std::string kind = b.value("kind", "");
    if (kind != "bra" && kind != "brx.idx") return fail(where + ": \"kind\" must be \"bra\" or \"brx.idx\"");
    BranchCounts c;
    c.indirect = kind == "brx.idx";
    if (c.indirect) {
      if (!b.contains("distinct_targets") || !b["distinct_targets"].is_object())
        return fail(where + ": a brx.idx needs \"distinct_targets\" (an object)");
      for (const auto& [k, v] : b["distinct_targets"].items()) {
        char* end = nullptr;
        unsigned long n = std::strtoul(k.c_str(), &end, 10);
        if (k.empty() || *end || n == 0) return fail(where + ": distinct_targets key '" + k + "' is not a number >= 1");
        if (!count(v, "distinct_targets." + k, c.distinctTargets[static_cast<uint32_t>(n)])) return false;
      }
    } else {
      for (const char* name : {"all_taken", "all_not_taken", "divergent"})
        if (!b.contains(name)) return fail(where + ": a bra needs \"" + std::string(name) + "\"");
      if (!count(b["all_taken"], "all_taken", c.allTaken) || !count(b["all_not_taken"], "all_not_taken", c.allNotTaken) ||
          !count(b["divergent"], "divergent", c.divergent))
        return false;
    }
    if (!onlyModule.empty() && !module.empty() && module != onlyModule) continue;
    out.branches[{b["function"].get<std::string>(), b["line"].get<uint32_t>()}].add(c);
  }
  return true;
}

std::vector<std::string> unmatchedProfileEntries(const BranchProfile& p, const Module& m) {
  BranchProfile here = emptyProfile(m);
  std::vector<std::string> out;
  for (const auto& [key, c] : p.branches) {
    auto it = here.branches.find(key);
    if (it == here.branches.end() || it->second.indirect != c.indirect)
      out.push_back(key.first + " line " + std::to_string(key.second) + " (" + (c.indirect ? "brx.idx" : "bra") + ")");
  }
  return out;
}

}  // namespace ptxopt
