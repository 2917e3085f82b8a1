#include "ptxopt/fuzz/Mutator.h"

#include <cctype>

#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/support/Text.h"

namespace ptxopt::fuzz {
namespace {

constexpr const char* kKindNames[] = {"drop-operand", "add-operand",  "operand-kind",  "undeclared-register",
                                      "type-suffix",  "space-suffix", "missing-label", "unbalanced-braces"};
static_assert(std::size(kKindNames) == static_cast<size_t>(MutationKind::NumKinds));

struct Rng {
  uint64_t state;
  uint64_t below(uint64_t n) { return n ? emu::splitmix64Next(state) % n : 0; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

// One instruction line taken apart: indentation, guard, mnemonic, operands (split at the
// commas outside brackets), and what follows the ';'.
struct InstLine {
  std::string indent, guard, mnemonic, tail;
  std::vector<std::string> operands;
  std::string join() const {
    std::string out = indent + guard + mnemonic;
    for (size_t k = 0; k < operands.size(); ++k) out += (k ? ", " : " \t") + operands[k];
    return out + ";" + tail;
  }
};

bool parseInstLine(const std::string& line, InstLine& out) {
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return false;
  size_t semi = line.find(';', start);
  if (semi == std::string::npos) return false;
  std::string body = line.substr(start, semi - start);
  out.indent = line.substr(0, start);
  out.tail = line.substr(semi + 1);
  if (trim(out.tail).rfind("//", 0) != 0 && !trim(out.tail).empty()) return false;
  size_t pos = 0;
  if (body[0] == '@') {
    size_t sp = body.find_first_of(" \t");
    if (sp == std::string::npos) return false;
    out.guard = body.substr(0, sp) + " ";
    pos = body.find_first_not_of(" \t", sp);
    if (pos == std::string::npos) return false;
  }
  if (!std::islower(static_cast<unsigned char>(body[pos]))) return false;
  size_t end = body.find_first_of(" \t", pos);
  out.mnemonic = body.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  out.operands.clear();
  if (end == std::string::npos) return true;
  std::string rest = body.substr(end);
  int depth = 0;
  std::string cur;
  for (char c : rest) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.operands.emplace_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.operands.emplace_back(trim(cur));
  return true;
}

// Declared register families: "%p" (predicates), "%r" ... with their counts.
struct RegFamily {
  std::string prefix;
  std::string type;
  uint32_t count;
};

std::vector<RegFamily> registerFamilies(const std::vector<std::string>& lines) {
  std::vector<RegFamily> out;
  for (const std::string& l : lines) {
    std::string t(trim(l));
    if (t.rfind(".reg", 0) != 0) continue;
    size_t pct = t.find('%'), lt = t.find('<', pct), gt = t.find('>', lt);
    if (pct == std::string::npos || lt == std::string::npos || gt == std::string::npos) continue;
    size_t typeAt = t.find(" .", 3);
    std::string type = typeAt == std::string::npos ? "" : t.substr(typeAt + 1, t.find_first_of(" \t", typeAt + 1) - typeAt - 1);
    uint32_t n = static_cast<uint32_t>(std::strtoul(t.substr(lt + 1, gt - lt - 1).c_str(), nullptr, 10));
    if (n > 1) out.push_back({t.substr(pct, lt - pct), type, n});
  }
  return out;
}

bool isRegisterOperand(const std::string& o) {
  std::string s = o[0] == '!' ? o.substr(1) : o;
  return s.size() > 1 && s[0] == '%' && s.find_first_of("[{.") == std::string::npos;
}

std::vector<std::string> dottedParts(const std::string& mnemonic) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= mnemonic.size()) {
    size_t dot = mnemonic.find('.', start + 1);
    if (dot == std::string::npos) dot = mnemonic.size();
    parts.push_back(mnemonic.substr(start, dot - start));
    start = dot;
    if (dot == mnemonic.size()) break;
  }
  return parts;
}

const std::vector<std::string> kTypes = {".s32", ".u32", ".b32", ".f32", ".f64", ".s64", ".u64", ".b64",
                                         ".s16", ".u16", ".b16", ".q32", ".s33", ".pred", ".f16", ".u8"};
const std::vector<std::string> kSpaces = {".global", ".shared", ".local", ".const", ".param", ".globl", ".shard"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const std::string& x : v)
    if (x == s) return true;
  return false;
}

}  // namespace

const char* mutationKindName(MutationKind k) { return kKindNames[static_cast<size_t>(k)]; }

std::optional<MutationKind> parseMutationKind(const std::string& name) {
  for (size_t k = 0; k < std::size(kKindNames); ++k)
    if (name == kKindNames[k]) return static_cast<MutationKind>(k);
  return std::nullopt;
}

bool mustAgreeOnRejection(MutationKind k) {
  return k == MutationKind::DropOperand || k == MutationKind::AddOperand || k == MutationKind::OperandKind ||
         k == MutationKind::UndeclaredRegister || k == MutationKind::MissingLabel;
}

bool mutatePtx(const std::string& ptx, uint64_t seed, std::optional<MutationKind> kind, Mutant& out) {
  Rng rng{seed * 0xD1B54A32D192ED03ull + 7};
  MutationKind k = kind ? *kind : static_cast<MutationKind>(rng.below(static_cast<uint64_t>(MutationKind::NumKinds)));
  std::vector<std::string> lines;
  for (size_t start = 0; start <= ptx.size();) {
    size_t nl = ptx.find('\n', start);
    if (nl == std::string::npos) nl = ptx.size();
    lines.push_back(ptx.substr(start, nl - start));
    start = nl + 1;
  }
  std::vector<RegFamily> families = registerFamilies(lines);

  // The lines this kind can change.
  std::vector<size_t> places;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string t(trim(lines[i]));
    if (k == MutationKind::UnbalancedBraces) {
      if (t == "{" || t == "}") places.push_back(i);
      continue;
    }
    InstLine il;
    if (!parseInstLine(lines[i], il)) continue;
    std::vector<std::string> parts = dottedParts(il.mnemonic);
    bool ok = false;
    switch (k) {
      case MutationKind::DropOperand:
      case MutationKind::AddOperand:
      case MutationKind::OperandKind: ok = !il.operands.empty(); break;
      case MutationKind::UndeclaredRegister:
        for (const std::string& o : il.operands) ok |= isRegisterOperand(o);
        break;
      case MutationKind::TypeSuffix:
        for (const std::string& p : parts) ok |= contains(kTypes, p);
        break;
      case MutationKind::SpaceSuffix:
        for (const std::string& p : parts) ok |= contains(kSpaces, p) || p == ".shared::cta";
        break;
      case MutationKind::MissingLabel: ok = parts[0] == "bra" && !il.operands.empty(); break;
      default: break;
    }
    if (ok) places.push_back(i);
  }
  if (places.empty()) return false;
  size_t at = rng.pick(places);
  out.kind = k;
  out.line = static_cast<uint32_t>(at + 1);
  out.before = lines[at];
  std::string after;

  if (k == MutationKind::UnbalancedBraces) {
    if (rng.below(2)) {
      after = "";  // the brace goes
    } else {
      after = lines[at] + "\n" + lines[at];  // a second one
    }
  } else {
    InstLine il;
    parseInstLine(lines[at], il);
    std::vector<std::string> parts = dottedParts(il.mnemonic);
    auto someRegister = [&](const std::string& notPrefix) {
      std::vector<const RegFamily*> fams;
      for (const RegFamily& f : families)
        if (f.prefix != notPrefix) fams.push_back(&f);
      if (fams.empty()) return std::string("%r1");
      const RegFamily* f = rng.pick(fams);
      return f->prefix + std::to_string(1 + rng.below(f->count - 1));
    };
    switch (k) {
      case MutationKind::DropOperand: il.operands.erase(il.operands.begin() + static_cast<std::ptrdiff_t>(rng.below(il.operands.size()))); break;
      case MutationKind::AddOperand: {
        size_t from = rng.below(il.operands.size());
        il.operands.insert(il.operands.begin() + static_cast<std::ptrdiff_t>(rng.below(il.operands.size() + 1)), il.operands[from]);
        break;
      }
      case MutationKind::OperandKind: {
        size_t which = rng.below(il.operands.size());
        const std::string o = il.operands[which];
        std::vector<std::string> replacements;
        std::string regPrefix;
        if (isRegisterOperand(o)) {
          std::string r = o[0] == '!' ? o.substr(1) : o;
          size_t digits = r.find_first_of("0123456789");
          regPrefix = r.substr(0, digits);
        }
        bool isImm = !o.empty() && (std::isdigit(static_cast<unsigned char>(o[0])) || o[0] == '-');
        bool isAddr = !o.empty() && o[0] == '[';
        bool isVec = !o.empty() && o[0] == '{';
        if (!isImm) replacements.push_back("1");
        if (!isImm) replacements.push_back("0f3F800000");
        if (!isAddr) replacements.push_back("[" + someRegister("%p") + "]");
        if (!isVec) replacements.push_back("{" + someRegister("%p") + ", " + someRegister("%p") + "}");
        if (o != "%tid.x") replacements.push_back("%tid.x");
        // A register of another family (a predicate for an integer, ...).
        if (!families.empty()) replacements.push_back(someRegister(regPrefix));
        il.operands[which] = rng.pick(replacements);
        break;
      }
      case MutationKind::UndeclaredRegister: {
        std::vector<size_t> regs;
        for (size_t q = 0; q < il.operands.size(); ++q)
          if (isRegisterOperand(il.operands[q])) regs.push_back(q);
        size_t q = rng.pick(regs);
        il.operands[q] = std::string(il.operands[q][0] == '!' ? "!" : "") + "%zz" + std::to_string(rng.below(1000));
        break;
      }
      case MutationKind::TypeSuffix:
      case MutationKind::SpaceSuffix: {
        const std::vector<std::string>& table = k == MutationKind::TypeSuffix ? kTypes : kSpaces;
        std::vector<size_t> idx;
        for (size_t q = 0; q < parts.size(); ++q)
          if (contains(table, parts[q]) || (k == MutationKind::SpaceSuffix && parts[q] == ".shared::cta")) idx.push_back(q);
        size_t q = rng.pick(idx);
        std::string replacement;
        do replacement = rng.pick(table);
        while (replacement == parts[q]);
        parts[q] = replacement;
        il.mnemonic.clear();
        for (const std::string& p : parts) il.mnemonic += p;
        break;
      }
      case MutationKind::MissingLabel: il.operands.back() = "$L__missing_" + std::to_string(rng.below(1000)); break;
      default: break;
    }
    after = il.join();
  }
  out.after = after;
  out.text.clear();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == at) {
      if (!after.empty() || k != MutationKind::UnbalancedBraces) out.text += after + "\n";
    } else {
      out.text += lines[i] + (i + 1 < lines.size() ? "\n" : "");
    }
  }
  return true;
}

}  // namespace ptxopt::fuzz
