#include "ptxopt/fuzz/Reducer.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "ptxopt/analysis/ReachingDefs.h"
#include "ptxopt/ir/Stats.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/Process.h"

namespace ptxopt::fuzz {

uint64_t countInstructions(const std::string& ptx) {
  DiagEngine diags;
  auto m = parseModule(ptx, "candidate.ptx", diags);
  return m ? computeStats(*m).instructions : 0;
}

namespace {

// The registers, as "function:name", that some instruction may read before any definition
// reaches it; nullopt when the text does not parse. A candidate may read only registers that the
// reproducer as given already read so: otherwise the reducer could keep a finding alive by
// deleting a definition and leaving the emulator's zero-initialized register to steer a branch.
std::optional<std::set<std::string>> possiblyUndefinedReads(const std::string& ptx) {
  DiagEngine diags;
  auto m = parseModule(ptx, "candidate.ptx", diags);
  if (!m) return std::nullopt;
  std::set<std::string> regs;
  for (auto& f : m->functions()) {
    if (!f->hasBody) continue;
    FunctionAnalysisManager am(*f);
    const ReachingDefs& rd = am.get<ReachingDefsAnalysis>();
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts())
        i->forEachUseReg([&](RegId r) {
          if (rd.entryValueReaches(i, r)) regs.insert(std::string(f->name()) + ":" + f->regName(r));
        });
  }
  return regs;
}

struct Candidate {
  std::vector<std::string> lines;  // the module as ptxopt prints it, one line each
  emu::LaunchSpec spec;
  std::string text() const {
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  }
};

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// An instruction line of the printed module: a tab, then an optional guard and a mnemonic
// (declarations, directives, scope braces and labels are not instructions).
bool isInstructionLine(const std::string& l) {
  if (l.size() < 2 || l[0] != '\t') return false;
  char c = l[1];
  return c == '@' || std::isalpha(static_cast<unsigned char>(c));
}

bool isLabelLine(const std::string& l) { return !l.empty() && l[0] != '\t' && l.back() == ':' && l.find(' ') == std::string::npos; }

// Integer literals of an instruction line (not register numbers, not inside names).
std::vector<std::pair<size_t, size_t>> integerLiterals(const std::string& l) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = l.find_first_of(" \t", 1);  // after the mnemonic
  if (start == std::string::npos) return out;
  for (size_t i = start; i < l.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(l[i]);
    if (!std::isdigit(c)) continue;
    unsigned char prev = i ? static_cast<unsigned char>(l[i - 1]) : ' ';
    if (std::isalnum(prev) || prev == '_' || prev == '%' || prev == '$' || prev == '.') {
      while (i < l.size() && (std::isalnum(static_cast<unsigned char>(l[i])) || l[i] == '_')) ++i;
      continue;
    }
    size_t j = i;
    if (l[j] == '0' && j + 1 < l.size() && (l[j + 1] == 'x' || l[j + 1] == 'X' || l[j + 1] == 'f' || l[j + 1] == 'F' ||
                                             l[j + 1] == 'd' || l[j + 1] == 'D'))
      j += 2;
    while (j < l.size() && std::isxdigit(static_cast<unsigned char>(l[j]))) ++j;
    if (j < l.size() && l[j] == 'U') ++j;
    if (j < l.size() && (std::isalpha(static_cast<unsigned char>(l[j])) || l[j] == '.')) {  // 1.5, 1e3: leave floats
      i = j;
      continue;
    }
    out.emplace_back(i, j - i);
    i = j;
  }
  return out;
}

// The literal `lit` as zero of the same form (0f00000000 stays a float literal).
std::string zeroOf(const std::string& lit) {
  if (lit.size() > 2 && (lit[1] == 'f' || lit[1] == 'F')) return "0f00000000";
  if (lit.size() > 2 && (lit[1] == 'd' || lit[1] == 'D')) return "0d0000000000000000";
  return "0";
}

class Reducer {
 public:
  Reducer(const Reproducer& r, const ReduceOptions& o) : pipeline_(r.pipeline), target_(r.verdict), options_(o) {
    if (!usesPtxas()) options_.harness.ptxas.clear();
  }

  bool run(const Reproducer& input, ReduceResult& out, std::string& error) {
    DiagEngine diags;
    auto m = loadModule(input.ptx, "original.ptx", diags);
    if (!m) {
      error = "the reproducer's module does not load:\n" + diags.str();
      return false;
    }
    best_.lines = splitLines(printModule(*m));
    best_.spec = input.spec;
    // Before the first check: a candidate may not read more possibly-undefined registers than
    // the input does (the input itself is the first candidate).
    undefinedReads_ = possiblyUndefinedReads(best_.text()).value_or(std::set<std::string>());
    if (target_ == Verdict::Ok || target_ == Verdict::BadInput) {
      if (!classify(best_, target_)) {
        error = "the reproducer shows no finding (verdict: " + std::string(verdictName(target_)) + ")";
        return false;
      }
    } else if (!interesting(best_)) {
      error = "the reproducer does not show its finding (" + std::string(verdictName(target_)) + ") any more";
      return false;
    }
    out.verdict = target_;
    out.instructionsBefore = countInstructions(best_.text());
    for (unsigned round = 1;; ++round) {
      uint64_t kept = kept_;
      deleteRuns();
      simplifyLines();
      dropFunctions();
      dropParameters();
      dropLabels();
      shrinkLaunch();
      log("round " + std::to_string(round) + ": " + std::to_string(countInstructions(best_.text())) + " instructions (" +
          std::to_string(tried_) + " candidates tried, " + std::to_string(kept_) + " kept)");
      if (kept_ == kept) break;
    }
    out.ptx = best_.text();
    out.spec = best_.spec;
    out.instructionsAfter = countInstructions(out.ptx);
    out.candidatesTried = tried_;
    out.candidatesKept = kept_;
    return true;
  }

 private:
  void log(const std::string& s) {
    if (options_.log) options_.log(s);
  }

  // Without a recorded verdict, the reduction keeps whatever finding the pipeline shows first.
  bool classify(const Candidate& c, Verdict& v) {
    ProcessResult r = runInChild([&] { return check(c); }, options_.timeoutSeconds);
    if (!r.ok() || r.out.rfind("ok:", 0) != 0) return false;
    std::string name = r.out.substr(3);
    Verdict found;
    if (!verdictFromName(name, found) || !isFinding(found)) return false;
    v = found;
    return true;
  }

  // In a child: "bad" (the candidate itself fails its checks) or "ok:<verdict of the pipeline>"
  // ("ok:<verdict of the original>" when the finding is a ptxas hang on the input).
  std::string check(const Candidate& c) const {
    // A ptxas hang on the input needs no pipeline and no run: the candidate must load (verify)
    // and still hang ptxas.
    KernelUnderTest k("candidate", c.text(), c.spec, options_.harness);
    if (target_ == Verdict::PtxasHangsOnInput) return std::string("ok:") + verdictName(k.checkLoadsAndAssembles().verdict);
    if (k.checkOriginal().verdict != Verdict::Ok) return "bad";
    return std::string("ok:") + verdictName(k.checkPipeline(pipeline_).verdict);
  }

  bool readsOnlyKnownUndefined(const Candidate& c) const {
    auto regs = possiblyUndefinedReads(c.text());
    return regs && std::includes(undefinedReads_.begin(), undefinedReads_.end(), regs->begin(), regs->end());
  }

  bool usesPtxas() const {
    return target_ == Verdict::PtxasRejected || target_ == Verdict::PtxasTimedOut || target_ == Verdict::PtxasHangsOnInput;
  }

  bool crashLike() const { return target_ == Verdict::Crash || target_ == Verdict::Hang; }

  bool verdictMatches(const ProcessResult& r) const {
    if (crashLike()) {
      return target_ == Verdict::Crash ? r.end == ProcessResult::End::Signaled : r.end == ProcessResult::End::TimedOut;
    }
    return r.ok() && r.out == std::string("ok:") + verdictName(target_);
  }

  bool interesting(const Candidate& c) {
    ++tried_;
    if (!readsOnlyKnownUndefined(c)) return false;
    if (!crashLike()) return verdictMatches(runInChild([&] { return check(c); }, options_.timeoutSeconds));
    // A crash must come from the pipeline, not from the candidate's own checks.
    ProcessResult original = runInChild(
        [&] {
          KernelUnderTest k("candidate", c.text(), c.spec, options_.harness);
          return std::string(k.checkOriginal().verdict == Verdict::Ok ? "ok" : "bad");
        },
        options_.timeoutSeconds);
    if (!original.ok() || original.out != "ok") return false;
    return verdictMatches(runInChild(
        [&] {
          KernelUnderTest k("candidate", c.text(), c.spec, options_.harness);
          k.checkOriginal();
          return std::string(verdictName(k.checkPipeline(pipeline_).verdict));
        },
        options_.timeoutSeconds));
  }

  // The first of `candidates` (in order) that is interesting; -1 when none is. Several are
  // checked at once with jobs > 1; the answer is the same as checking them one by one.
  int firstInteresting(const std::vector<Candidate>& candidates) {
    if (options_.jobs <= 1 || crashLike()) {
      for (size_t k = 0; k < candidates.size(); ++k)
        if (interesting(candidates[k])) return static_cast<int>(k);
      return -1;
    }
    for (size_t start = 0; start < candidates.size(); start += options_.jobs) {
      size_t n = std::min<size_t>(options_.jobs, candidates.size() - start);
      std::vector<bool> ok(n, false);
      std::vector<bool> defined(n);
      for (size_t i = 0; i < n; ++i) defined[i] = readsOnlyKnownUndefined(candidates[start + i]);
      runInChildren(
          n, options_.jobs, options_.timeoutSeconds, [&](size_t i) { return check(candidates[start + i]); },
          [&](size_t i, ProcessResult&& r) { ok[i] = defined[i] && verdictMatches(r); });
      tried_ += n;
      for (size_t i = 0; i < n; ++i)
        if (ok[i]) return static_cast<int>(start + i);
    }
    return -1;
  }

  bool accept(const std::vector<Candidate>& candidates) {
    int k = firstInteresting(candidates);
    if (k < 0) return false;
    best_ = candidates[static_cast<size_t>(k)];
    ++kept_;
    return true;
  }

  std::vector<size_t> instructionLines() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < best_.lines.size(); ++i)
      if (isInstructionLine(best_.lines[i])) out.push_back(i);
    return out;
  }

  Candidate without(const std::vector<size_t>& lineIndices, size_t from, size_t count) const {
    std::set<size_t> drop(lineIndices.begin() + static_cast<std::ptrdiff_t>(from),
                          lineIndices.begin() + static_cast<std::ptrdiff_t>(std::min(from + count, lineIndices.size())));
    Candidate c;
    c.spec = best_.spec;
    for (size_t i = 0; i < best_.lines.size(); ++i)
      if (!drop.count(i)) c.lines.push_back(best_.lines[i]);
    return c;
  }

  // Runs of instructions, from half of them down to one at a time.
  void deleteRuns() {
    size_t n = instructionLines().size();
    for (size_t chunk = std::max<size_t>(1, n / 2);; chunk /= 2) {
      for (size_t from = 0;;) {
        std::vector<size_t> lines = instructionLines();
        if (from >= lines.size()) break;
        std::vector<Candidate> batch;
        for (size_t f = from; f < lines.size() && batch.size() < std::max(1u, options_.jobs); f += chunk)
          batch.push_back(without(lines, f, chunk));
        int k = firstInteresting(batch);
        if (k >= 0) {
          best_ = batch[static_cast<size_t>(k)];
          ++kept_;
          from += static_cast<size_t>(k) * chunk;  // the run at `from` is gone: the next one is there now
        } else {
          from += batch.size() * chunk;
        }
      }
      if (chunk == 1) break;
    }
  }

  // Guards dropped (a conditional branch becomes unconditional) and immediates zeroed.
  void simplifyLines() {
    for (size_t i = 0; i < best_.lines.size(); ++i) {
      const std::string& l = best_.lines[i];
      if (!isInstructionLine(l)) continue;
      std::vector<Candidate> options;
      if (l[1] == '@') {
        size_t space = l.find(' ');
        if (space != std::string::npos) {
          Candidate c = best_;
          c.lines[i] = "\t" + l.substr(space + 1);
          options.push_back(std::move(c));
        }
      }
      auto lits = integerLiterals(l);
      bool nonzero = false;
      std::string zeroed = l;
      for (auto it = lits.rbegin(); it != lits.rend(); ++it) {
        std::string lit = l.substr(it->first, it->second);
        std::string z = zeroOf(lit);
        if (lit != z) nonzero = true;
        zeroed.replace(it->first, it->second, z);
      }
      if (nonzero) {
        Candidate c = best_;
        c.lines[i] = zeroed;
        options.push_back(std::move(c));
      }
      for (Candidate& c : options) {
        std::vector<Candidate> one{c};
        accept(one);
      }
    }
  }

  // Whole functions (`.func` definitions and declarations) that nothing needs any more.
  void dropFunctions() {
    for (size_t i = 0; i < best_.lines.size(); ++i) {
      const std::string& l = best_.lines[i];
      if (l.empty() || l[0] == '\t' || l.find(".func") == std::string::npos) continue;
      size_t end = i;
      if (l.back() != ';') {  // a definition: up to the closing brace at the start of a line
        while (end < best_.lines.size() && best_.lines[end] != "}") ++end;
        if (end == best_.lines.size()) continue;
      }
      Candidate c;
      c.spec = best_.spec;
      for (size_t k = 0; k < best_.lines.size(); ++k)
        if (k < i || k > end) c.lines.push_back(best_.lines[k]);
      std::vector<Candidate> one{c};
      if (accept(one)) --i;
    }
  }

  // A kernel parameter, with the launch's parameter of the same position.
  void dropParameters() {
    for (size_t i = 0; i < best_.lines.size(); ++i) {
      if (best_.lines[i].find(".entry") == std::string::npos || best_.lines[i][0] == '\t') continue;
      for (size_t param = 0;;) {
        // The parameter lines follow the header up to ")".
        std::vector<size_t> params;
        for (size_t k = i + 1; k < best_.lines.size() && best_.lines[k] != ")"; ++k)
          if (best_.lines[k].find(".param") != std::string::npos) params.push_back(k);
        if (param >= params.size() || param >= best_.spec.params.size()) break;
        Candidate c = best_;
        c.lines.erase(c.lines.begin() + static_cast<std::ptrdiff_t>(params[param]));
        if (param + 1 == params.size() && param > 0) {  // the new last parameter loses its comma
          std::string& prev = c.lines[params[param - 1]];
          if (!prev.empty() && prev.back() == ',') prev.pop_back();
        }
        c.spec.params.erase(c.spec.params.begin() + static_cast<std::ptrdiff_t>(param));
        std::vector<Candidate> one{c};
        if (!accept(one)) ++param;
      }
    }
  }

  void dropLabels() {
    for (size_t i = 0; i < best_.lines.size(); ++i) {
      if (!isLabelLine(best_.lines[i])) continue;
      std::string name = best_.lines[i].substr(0, best_.lines[i].size() - 1);
      bool used = false;
      for (size_t k = 0; k < best_.lines.size() && !used; ++k) {
        if (k == i) continue;
        size_t at = best_.lines[k].find(name);
        while (at != std::string::npos && !used) {
          size_t after = at + name.size();
          used = after >= best_.lines[k].size() || !(std::isalnum(static_cast<unsigned char>(best_.lines[k][after])) ||
                                                     best_.lines[k][after] == '_' || best_.lines[k][after] == '$');
          at = best_.lines[k].find(name, at + 1);
        }
      }
      if (used) continue;
      Candidate c = best_;
      c.lines.erase(c.lines.begin() + static_cast<std::ptrdiff_t>(i));
      std::vector<Candidate> one{c};
      if (accept(one)) --i;
    }
  }

  void shrinkLaunch() {
    for (int dim = 0; dim < 3; ++dim) {
      if (best_.spec.grid[dim] > 1) {
        Candidate c = best_;
        c.spec.grid[dim] = 1;
        std::vector<Candidate> one{c};
        accept(one);
      }
      while (best_.spec.block[dim] > (dim == 0 ? 32u : 1u)) {
        Candidate c = best_;
        c.spec.block[dim] = std::max(dim == 0 ? 32u : 1u, c.spec.block[dim] / 2);
        std::vector<Candidate> one{c};
        if (!accept(one)) break;
      }
    }
  }

  Pipeline pipeline_;
  Verdict target_;
  ReduceOptions options_;
  Candidate best_;
  uint64_t tried_ = 0, kept_ = 0;
  std::set<std::string> undefinedReads_;  // of the reproducer as given
};

}  // namespace

bool reduceReproducer(const Reproducer& input, const ReduceOptions& options, ReduceResult& out, std::string& error) {
  Reducer r(input, options);
  return r.run(input, out, error);
}

}  // namespace ptxopt::fuzz
