#include "ptxopt/quality/Sass.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "ptxopt/support/Text.h"

namespace ptxopt::quality {
namespace {

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// "/*0a40*/  @!P0 BRA `(.L_x_3) ;" -> the instruction, or false for any other line.
bool parseInstruction(const std::string& line, SassInstruction& out) {
  if (!startsWith(line, "/*")) return false;
  size_t close = line.find("*/");
  if (close == std::string::npos) return false;
  std::string hex = line.substr(2, close - 2);
  if (hex.empty()) return false;
  for (char c : hex)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  out.offset = static_cast<uint32_t>(std::strtoul(hex.c_str(), nullptr, 16));
  std::string rest(trim(line.substr(close + 2)));
  if (rest.empty() || rest[0] == '.') return false;  // data (.byte, .word) in non-text sections
  std::istringstream in(rest);
  std::string word;
  in >> word;
  if (!word.empty() && word[0] == '@') {
    out.predicate = word;
    in >> word;
  }
  while (!word.empty() && (word.back() == ';')) word.pop_back();
  if (word.empty() || !std::isupper(static_cast<unsigned char>(word[0]))) return false;
  out.opcode = word;
  out.base = word.substr(0, word.find('.'));
  size_t tick = rest.find("`(");
  if (tick != std::string::npos) {
    size_t end = rest.find(')', tick);
    if (end != std::string::npos) out.target = rest.substr(tick + 2, end - tick - 2);
  }
  return true;
}

bool isLabelLine(const std::string& line, std::string& label) {
  if (line.size() < 2 || line.back() != ':') return false;
  std::string name = line.substr(0, line.size() - 1);
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$')) return false;
  label = name;
  return true;
}

bool endsBlock(const SassInstruction& i) {
  static const char* kTransfers[] = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL", "BSYNC", "BREAK", "KILL"};
  for (const char* t : kTransfers)
    if (i.base == t) return true;
  return false;
}

}  // namespace

std::vector<SassFunction> parseNvdisasm(const std::string& text) {
  std::vector<SassFunction> out;
  std::istringstream in(text);
  std::string raw;
  SassFunction* f = nullptr;
  uint32_t line = 0;
  std::string pendingLabel;
  while (std::getline(in, raw)) {
    std::string l(trim(raw));
    if (l.empty()) continue;
    if (startsWith(l, ".section") && l.size() > 8 && (l[8] == ' ' || l[8] == '\t')) {
      // ".section\t.text.NAME,\"ax\",@progbits" opens a function; other sections close it.
      std::string rest(trim(l.substr(8)));
      if (startsWith(rest, ".text.")) {
        out.emplace_back();
        f = &out.back();
        f->name = rest.substr(6, rest.find(',') - 6);
        line = 0;
        pendingLabel.clear();
      } else {
        f = nullptr;
      }
      continue;
    }
    if (!f) continue;
    if (startsWith(l, ".other") && l.find(f->name + ",") != std::string::npos && l.find("STO_CUDA_ENTRY") != std::string::npos) {
      f->isEntry = true;
      continue;
    }
    if (startsWith(l, "//## File")) {
      size_t at = l.find(", line ");
      if (at != std::string::npos) line = static_cast<uint32_t>(std::strtoul(l.c_str() + at + 7, nullptr, 10));
      continue;
    }
    std::string label;
    if (isLabelLine(l, label)) {
      pendingLabel = label;
      continue;
    }
    SassInstruction inst;
    if (!parseInstruction(l, inst)) continue;
    inst.label = std::move(pendingLabel);
    pendingLabel.clear();
    inst.ptxLine = line;
    f->instructions.push_back(std::move(inst));
  }
  return out;
}

bool isPadding(const SassFunction& f, size_t index) {
  const SassInstruction& i = f.instructions[index];
  if (i.base == "NOP") return true;
  // The self-loop ptxas puts after the code: "L: BRA `(L)".
  return i.base == "BRA" && !i.guarded() && !i.label.empty() && i.target == i.label;
}

void SassCensus::add(const SassCensus& o) {
  for (const CensusField& f : kCensusFields) this->*f.member += o.*f.member;
}

SassCensus census(const SassFunction& f) {
  SassCensus c;
  for (size_t k = 0; k < f.instructions.size(); ++k) {
    if (isPadding(f, k)) continue;
    const SassInstruction& i = f.instructions[k];
    ++c.instructions;
    if (i.base == "BRA") ++c.bra;
    if (i.base == "BRX") ++c.brx;
    if (i.base == "BSSY") ++c.bssy;
    if (i.base == "BSYNC") ++c.bsync;
    if (i.base == "BAR") ++c.bar;
    if (i.base == "EXIT") ++c.exit;
    if (i.guarded()) ++c.predicated;
  }
  return c;
}

std::vector<SassBlock> sassBlocks(const SassFunction& f) {
  std::vector<SassBlock> out;
  const auto& is = f.instructions;
  size_t start = 0;
  for (size_t k = 0; k < is.size(); ++k) {
    if (k > start && !is[k].label.empty()) {
      out.push_back({start, k - 1});
      start = k;
    }
    if (endsBlock(is[k])) {
      out.push_back({start, k});
      start = k + 1;
    }
  }
  if (start < is.size()) out.push_back({start, is.size() - 1});
  return out;
}

std::map<std::string, PtxasResources> parsePtxasVerbose(const std::string& text) {
  std::map<std::string, PtxasResources> out;
  std::istringstream in(text);
  std::string l, current;
  auto quoted = [](const std::string& s, size_t from) {
    size_t a = s.find('\'', from), b = a == std::string::npos ? a : s.find('\'', a + 1);
    return b == std::string::npos ? std::string() : s.substr(a + 1, b - a - 1);
  };
  auto numberBefore = [](const std::string& s, const char* what) -> uint64_t {
    size_t at = s.find(what);
    if (at == std::string::npos) return 0;
    size_t b = at;
    while (b > 0 && s[b - 1] == ' ') --b;
    size_t a = b;
    while (a > 0 && std::isdigit(static_cast<unsigned char>(s[a - 1]))) --a;
    return a < b ? std::strtoull(s.c_str() + a, nullptr, 10) : 0;
  };
  while (std::getline(in, l)) {
    size_t at;
    if ((at = l.find("Compiling entry function")) != std::string::npos ||
        (at = l.find("Function properties for")) != std::string::npos) {
      std::string name = l.find('\'', at) != std::string::npos ? quoted(l, at) : std::string(trim(l.substr(l.find(" for ", at) + 5)));
      if (!name.empty()) current = name;
      continue;
    }
    if (current.empty()) continue;
    if (l.find("bytes stack frame") != std::string::npos) {
      PtxasResources& r = out[current];
      r.stackFrame = numberBefore(l, "bytes stack frame");
      r.spillStores = numberBefore(l, "bytes spill stores");
      r.spillLoads = numberBefore(l, "bytes spill loads");
    } else if (l.find("Used ") != std::string::npos && l.find(" registers") != std::string::npos) {
      out[current].registers = static_cast<int>(numberBefore(l, " registers"));
    }
  }
  return out;
}

}  // namespace ptxopt::quality
