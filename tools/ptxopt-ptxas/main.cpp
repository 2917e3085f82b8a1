// ptxopt-ptxas: ptxas's command line with ptxopt in front. It optimizes each PTX input with the
// library (guarded, so that a crash or a hang of the optimizer costs nothing but the
// optimization), then runs the real ptxas with the same arguments, each input replaced by its
// optimized copy. Anything that goes wrong on ptxopt's side is one warning line and the original
// PTX: a build never fails because of ptxopt unless PTXOPT_STRICT=1 asks for it.
//
// Settings come from the environment (docs/PTXOPT_PTXAS.md): PTXOPT_PTXAS, PTXOPT_FLAGS,
// PTXOPT_PROFILE_USE, PTXOPT_REMARKS, PTXOPT_KEEP_DIR, PTXOPT_FINDINGS_DIR, PTXOPT_STRICT,
// PTXOPT_VERBOSE, PTXOPT_TIMEOUT.

#include <elf.h>
#include <link.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../common/PipelineFlags.h"
#include "PtxasCommand.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"
#include "ptxopt/support/Hash.h"
#include "ptxopt/support/Process.h"
#include "ptxopt/support/Version.h"

namespace {

using ptxopt::tools::PtxasCommand;

constexpr const char* kTool = "ptxopt-ptxas";
// Set in the environment of the ptxas this runs: a "ptxas" that turns out to run ptxopt-ptxas
// again would otherwise recurse without end.
constexpr const char* kActiveVar = "PTXOPT_PTXAS_ACTIVE";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
bool envFlag(const char* name) {
  std::string v = env(name);
  return !v.empty() && v != "0";
}

void warn(const std::string& message) { std::fprintf(stderr, "%s: warning: %s\n", kTool, message.c_str()); }
int fail(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}

std::string baseName(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::string selfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool executable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// ---- the real ptxas -------------------------------------------------------------------------

// The first of `candidates` that is an executable and not this program.
std::string firstPtxas(const std::vector<std::string>& candidates, const std::string& self) {
  for (const std::string& c : candidates)
    if (executable(c) && !sameFile(c, self)) return c;
  return {};
}

std::vector<std::string> onPath(const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& dir : ptxopt::searchPath()) out.push_back(dir + "/" + name);
  return out;
}

// nvcc's --ptxas-prefix names the ptxas it meant as the first argument; else PTXOPT_PTXAS, then
// $CUDA_HOME/bin/ptxas, /usr/local/cuda/bin/ptxas and the PATH. Never this program.
std::string findRealPtxas(const std::string& fromNvcc, std::string& error) {
  const std::string self = selfExe();
  if (!fromNvcc.empty()) {
    std::string p = firstPtxas(fromNvcc.find('/') == std::string::npos ? onPath(fromNvcc) : std::vector{fromNvcc}, self);
    if (!p.empty()) return p;
  }
  if (std::string e = env("PTXOPT_PTXAS"); !e.empty()) {
    if (!executable(e)) error = "PTXOPT_PTXAS=" + e + " is not an executable";
    else if (sameFile(e, self)) error = "PTXOPT_PTXAS=" + e + " is ptxopt-ptxas itself; it must name NVIDIA's ptxas";
    return error.empty() ? e : std::string();
  }
  std::vector<std::string> candidates;
  if (std::string cuda = env("CUDA_HOME"); !cuda.empty()) candidates.push_back(cuda + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (std::string& p : onPath("ptxas")) candidates.push_back(std::move(p));
  std::string p = firstPtxas(candidates, self);
  if (p.empty())
    error = "cannot find NVIDIA's ptxas (looked at $CUDA_HOME/bin, /usr/local/cuda/bin and the PATH); set "
            "PTXOPT_PTXAS to its path";
  return p;
}

// ---- running ptxas ----------------------------------------------------------------------------

ptxopt::ProcessResult runPtxas(const std::string& ptxas, const std::vector<std::string>& args) {
  std::vector<std::string> argv{ptxas};
  argv.insert(argv.end(), args.begin(), args.end());
  return ptxopt::spawnProcess(argv);
}

void writeAll(int fd, const std::string& s) {
  for (size_t done = 0; done < s.size();) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Hands on what ptxas printed, and ends as it ended (its exit status, or its signal).
int endAs(const ptxopt::ProcessResult& r) {
  std::fflush(stdout);
  std::fflush(stderr);
  writeAll(1, r.out);
  writeAll(2, r.err);
  if (r.end == ptxopt::ProcessResult::End::Signaled) {
    struct rlimit none = {0, 0};  // the signal, not a core file of this program
    setrlimit(RLIMIT_CORE, &none);
    signal(r.signal, SIG_DFL);
    raise(r.signal);
    return 128 + r.signal;
  }
  if (r.end != ptxopt::ProcessResult::End::Exited) return fail("could not run ptxas: " + r.describe());
  return r.exitCode;
}

[[noreturn]] void execPtxas(const std::string& ptxas, const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(ptxas.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execv(ptxas.c_str(), argv.data());
  std::fprintf(stderr, "%s: error: cannot run %s: %s\n", kTool, ptxas.c_str(), std::strerror(errno));
  std::exit(1);
}

// ---- the call as it came ------------------------------------------------------------------------

// The real ptxas and the original arguments, once the ptxas is found: where every way out that
// gives up on ptxopt hands the call, unchanged (a crash or a hang of the optimizer, from a signal
// handler: the strings and the argv array are made once, before).
struct OriginalCall {
  std::string ptxas;
  std::vector<std::string> args;
  std::vector<char*> argv;  // ptxas, args, nullptr

  void set(std::string path, std::vector<std::string> arguments) {
    ptxas = std::move(path);
    args = std::move(arguments);
    argv.clear();
    argv.push_back(ptxas.data());
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
  }
  bool known() const { return !argv.empty(); }
};
OriginalCall gOriginalCall;

// ---- temporary files ----------------------------------------------------------------------------

// The directory of the optimized copies, removed on every way out, an interrupt included.
char gTempDir[4096];
std::vector<std::string> gTempFiles;

// Signal handlers call it: only unlink and rmdir, on names written before a signal could come.
void removeTemporaries() {
  for (const std::string& f : gTempFiles) unlink(f.c_str());
  if (gTempDir[0]) rmdir(gTempDir);
}

void onSignal(int sig) {
  removeTemporaries();
  signal(sig, SIG_DFL);
  raise(sig);
}

bool makeTempDir(std::string& error) {
  std::string base = env("TMPDIR");
  if (base.empty()) base = "/tmp";
  std::string pattern = base + "/ptxopt-ptxas-XXXXXX";
  if (pattern.size() >= sizeof gTempDir) {
    error = "TMPDIR is too long";
    return false;
  }
  std::strcpy(gTempDir, pattern.c_str());
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, onSignal);
  if (!mkdtemp(gTempDir)) {
    error = "cannot make a temporary directory under " + base + ": " + std::strerror(errno);
    gTempDir[0] = 0;
    return false;
  }
  return true;
}

// ---- settings ----------------------------------------------------------------------------------

struct Settings {
  ptxopt::tools::PipelineFlags flags;
  bool optimizeDebug = false;  // also under -g and --opt-level 0
  bool strict = false, verbose = false;
  std::string keepDir, findingsDir, remarks;
  unsigned timeoutSeconds = 300;
  std::string error;  // a malformed setting
};

// Splits PTXOPT_FLAGS into words as a shell would for plain words and quotes ('...', "...").
std::vector<std::string> splitWords(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  bool inWord = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord) words.push_back(cur);
      cur.clear();
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(cur);
  return words;
}

Settings readSettings() {
  Settings s;
  CLI::App app{"PTXOPT_FLAGS"};
  ptxopt::tools::addPipelineFlags(app, s.flags);
  app.add_flag("--optimize-debug", s.optimizeDebug, "optimize under ptxas -g and --opt-level 0 too");
  std::vector<std::string> words = splitWords(env("PTXOPT_FLAGS"));
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    s.error = "PTXOPT_FLAGS: " + std::string(e.what());
  }
  s.strict = envFlag("PTXOPT_STRICT");
  s.verbose = envFlag("PTXOPT_VERBOSE");
  s.keepDir = env("PTXOPT_KEEP_DIR");
  s.remarks = env("PTXOPT_REMARKS");
  if (s.remarks.empty()) s.remarks = s.flags.remarks;
  if (std::string p = env("PTXOPT_PROFILE_USE"); !p.empty()) s.flags.profileUse = p;
  s.findingsDir = env("PTXOPT_FINDINGS_DIR");
  if (s.findingsDir.empty()) {
    std::string cache = env("XDG_CACHE_HOME");
    if (cache.empty() && !env("HOME").empty()) cache = env("HOME") + "/.cache";
    s.findingsDir = (cache.empty() ? std::string("/tmp") : cache) + "/ptxopt/findings";
  }
  if (std::string t = env("PTXOPT_TIMEOUT"); !t.empty()) {
    char* end = nullptr;
    unsigned long v = std::strtoul(t.c_str(), &end, 10);
    if (!end || *end || v == 0 || v > 86400) s.error = "PTXOPT_TIMEOUT=" + t + " is not a number of seconds (1-86400)";
    else s.timeoutSeconds = static_cast<unsigned>(v);
  }
  return s;
}

// ---- optimizing one file ----------------------------------------------------------------------------

struct Optimized {
  bool ok = false;
  std::string ptx;      // the optimized module
  std::string remarks;  // JSON lines
  std::string notes;    // the profile's warnings, ptxopt's diagnostics (shown with PTXOPT_VERBOSE)
  std::string reason;   // why it failed, one line
  std::string summary;  // what the passes did, one line
};

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// What ptxas said against a file: its first error line (its -v information comes first), else
// its first line.
std::string ptxasComplaint(const std::string& err) {
  for (size_t at = 0; at < err.size();) {
    size_t nl = err.find('\n', at);
    std::string line = err.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos) return line;
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return firstLine(err);
}

Optimized optimize(const std::string& text, const std::string& path, ptxopt::PassManager& pm, const Settings& s) {
  Optimized o;
  ptxopt::DiagEngine diags;
  std::unique_ptr<ptxopt::Module> module = ptxopt::loadModule(text, path, diags);
  if (!module) {
    o.reason = diags.hasErrors() ? firstLine(diags.str()) : "the front end rejected it";
    return o;
  }
  o.notes = diags.str();
  ptxopt::BranchProfile profile;
  if (!s.flags.profileUse.empty()) {
    std::string warnings, error;
    if (!ptxopt::tools::loadProfile(s.flags.profileUse, *module, text, path, /*onlyFunctionsOf=*/true, profile, warnings,
                                    error)) {
      o.reason = error;
      return o;
    }
    o.notes += warnings;
    pm.setProfile(&profile);
  }
  ptxopt::DiagEngine pdiags;
  ptxopt::PassRunResult result = pm.run(*module, pdiags);
  if (!result.ok || pdiags.hasErrors()) {
    o.reason = firstLine(pdiags.str());
    return o;
  }
  ptxopt::DiagEngine vdiags;
  if (!ptxopt::verifyModule(*module, vdiags, "after the pipeline")) {
    o.reason = firstLine(vdiags.str());
    return o;
  }
  for (const ptxopt::Remark& r : result.remarks) o.remarks += ptxopt::tools::remarkJson(r) + "\n";
  for (const auto& [name, n] : result.counts)
    if (n) o.summary += fmt::format("{}{} {}", o.summary.empty() ? "" : ", ", name, n);
  if (o.summary.empty()) o.summary = "no change";
  o.ptx = ptxopt::printModule(*module);
  o.ok = true;
  return o;
}

// ---- a guard against crashes and hangs of the optimizer ----------------------------------------

// While ptxopt optimizes a file, a crash (a fatal signal) or a hang (PTXOPT_TIMEOUT, by SIGALRM)
// must not fail the compile. The handler writes one line and hands the call, unchanged, to ptxas:
// execv replaces the broken process and is async-signal-safe. Under PTXOPT_STRICT it exits 1.
// Everything the handler touches is prepared before the guard is armed. (A forked child would
// do the same at the price of a fork per compile, a third of ptxopt-ptxas's own time on a small
// kernel: docs/BENCHMARKS.md.)
struct Guard {
  std::vector<std::string> texts;  // by signal: the whole line the handler writes
  bool strict = false;
};
Guard gGuard;
constexpr int kGuardedSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};
alignas(16) char gAltStack[1 << 16];  // the handler's stack: a stack overflow is a crash too

extern "C" void onOptimizerFault(int sig) {
  const std::string& line = gGuard.texts[static_cast<size_t>(sig)];
  (void)!write(2, line.data(), line.size());
  removeTemporaries();
  if (gGuard.strict) _exit(1);
  execv(gOriginalCall.argv[0], gOriginalCall.argv.data());
  _exit(127);
}

void armGuard(const std::string& path, const Settings& s) {
  gGuard.strict = s.strict;
  gGuard.texts.assign(NSIG, std::string());
  for (int sig : kGuardedSignals) {
    std::string reason = sig == SIGALRM ? fmt::format("ptxopt took longer than {} s (PTXOPT_TIMEOUT)", s.timeoutSeconds)
                                        : fmt::format("ptxopt crashed: signal {} ({})", sig, strsignal(sig));
    gGuard.texts[static_cast<size_t>(sig)] =
        s.strict ? fmt::format("{}: error: cannot optimize {}: {}\n", kTool, path, reason)
                 : fmt::format("{}: warning: cannot optimize {}: {}; assembling the original PTX\n", kTool, path, reason);
  }
  stack_t alt{};
  alt.ss_sp = gAltStack;
  alt.ss_size = sizeof gAltStack;
  sigaltstack(&alt, nullptr);
  struct sigaction sa{};
  sa.sa_handler = onOptimizerFault;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : kGuardedSignals) sigaction(sig, &sa, nullptr);
  std::fflush(stderr);
  alarm(s.timeoutSeconds);
}

void disarmGuard() {
  alarm(0);
  for (int sig : kGuardedSignals) signal(sig, SIG_DFL);
}

Optimized optimizeGuarded(const std::string& text, const std::string& path, ptxopt::PassManager& pm,
                          const Settings& s) {
  armGuard(path, s);
  Optimized o;
  try {
    o = optimize(text, path, pm, s);
  } catch (const std::exception& e) {
    o = Optimized{};
    o.reason = std::string("internal error: ") + e.what();
  }
  disarmGuard();
  return o;
}

// ---- keeping files ----------------------------------------------------------------------------

// A name for a module's files: its first kernel's name (or first function's), cut to 64
// characters, and a hash of the text.
std::string moduleStem(const std::string& text) {
  std::string name = "module";
  for (const char* word : {".entry", ".func"}) {
    size_t at = text.find(std::string(word) + " ");
    if (at == std::string::npos) continue;
    at += std::strlen(word) + 1;
    while (at < text.size() && (text[at] == ' ' || text[at] == '(')) {
      if (text[at] == '(') {  // a .func's return parameters come first
        size_t close = text.find(')', at);
        if (close == std::string::npos) break;
        at = close + 1;
      } else {
        ++at;
      }
    }
    size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '$'))
      ++end;
    if (end > at) {
      name = text.substr(at, std::min<size_t>(end - at, 64));
      break;
    }
  }
  return name + "-" + ptxopt::hex16(ptxopt::fnv1a(text));
}

std::string argsJson(const std::string& ptxas, const std::vector<std::string>& args, const std::string& input,
                     size_t index, const std::string& status) {
  nlohmann::json j;
  j["ptxas"] = ptxas;
  j["args"] = args;
  j["input"] = input;
  j["input_index"] = index;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) j["cwd"] = cwd;  // relative paths in the call, and in .file lines
  j["status"] = status;
  j["ptxopt"] = ptxopt::kVersion;
  j["ptxopt_flags"] = env("PTXOPT_FLAGS");
  return j.dump(1) + "\n";
}

// Writes the original (and, when there is one, the optimized) PTX and the ptxas call into `dir`
// as STEM.in.ptx, STEM.opt.ptx, STEM.json. Returns the stem's path, empty on failure.
std::string keepFiles(const std::string& dir, const std::string& original, const std::string* optimized,
                      const std::string& json) {
  std::string error;
  if (!ptxopt::makeDirectory(dir, error)) {
    warn("cannot keep files in " + dir + ": " + error);
    return {};
  }
  std::string stem = dir + "/" + moduleStem(original);
  bool ok = ptxopt::writeFile(stem + ".in.ptx", original, error) &&
            (!optimized || ptxopt::writeFile(stem + ".opt.ptx", *optimized, error)) &&
            ptxopt::writeFile(stem + ".json", json, error);
  if (!ok) warn("cannot keep files in " + dir + ": " + error);
  return ok ? stem : std::string();
}

// ---- --version ------------------------------------------------------------------------------------

// The GNU build id of this executable (the linker's hash of its contents), 12 hex digits; empty
// without one.
std::string buildId() {
  std::string id;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* out) {
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          const char* at = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
          const char* end = at + ph.p_memsz;
          while (at + sizeof(ElfW(Nhdr)) <= end) {
            const auto* n = reinterpret_cast<const ElfW(Nhdr)*>(at);
            const char* name = at + sizeof(ElfW(Nhdr));
            const char* desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              std::string& hex = *static_cast<std::string*>(out);
              for (unsigned k = 0; k < n->n_descsz && hex.size() < 12; ++k)
                hex += fmt::format("{:02x}", static_cast<unsigned char>(desc[k]));
              return 1;
            }
            at = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1;  // the executable is the first object; the libraries do not matter
      },
      &id);
  return id;
}

// The line ptxopt-ptxas adds to ptxas's version: it names ptxopt's build and what it will do, so
// that a cache keyed by the version text (Triton's) does not hand out objects built without
// ptxopt or with another pipeline or profile. It must not contain the word Triton looks for
// ("release N.N"), which belongs to ptxas's own line.
std::string versionLine(const Settings& s) {
  std::string error, build = buildId();
  if (build.empty()) {  // a linker without build ids: a hash of the executable
    std::string exe;
    build = ptxopt::readFile(selfExe(), exe, error) ? ptxopt::hex16(ptxopt::fnv1a(exe)) : "unknown";
  }
  std::string what;
  if (!s.error.empty()) {
    what = "off (" + s.error + ")";
  } else if (s.flags.passes.empty() && s.flags.optLevel == 0) {
    what = "off (PTXOPT_FLAGS -O0)";
  } else {
    ptxopt::PassManagerOptions pmo;
    ptxopt::PassManager pm;
    if (ptxopt::tools::pipelineOptions(s.flags, pmo, error) && pm.configure(pmo, error)) {
      what = "pipeline " + ptxopt::tools::pipelineText(pm);
      for (const auto& [k, v] : pmo.knobs) what += " " + k + "=" + v;
    } else {
      what = "off (PTXOPT_FLAGS: " + error + ")";
    }
  }
  if (!s.flags.profileUse.empty()) {
    std::string profile;
    what += ", profile " + s.flags.profileUse + " " +
            (ptxopt::readFile(s.flags.profileUse, profile, error) ? ptxopt::hex16(ptxopt::fnv1a(profile)) : "unreadable");
  }
  if (s.optimizeDebug) what += ", debug code too";
  return fmt::format("{}: ptxopt {} (build {}), {}\n", kTool, ptxopt::kVersion, build, what);
}

// ---- the call ----------------------------------------------------------------------------------

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // nvcc --ptxas-prefix=ptxopt-ptxas runs "ptxopt-ptxas ptxas ARGS": the first argument is its ptxas.
  std::string fromNvcc;
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    std::string b = baseName(args[0]);
    if (b == "ptxas" || b == "ptxas.exe") {
      fromNvcc = args[0];
      args.erase(args.begin());
    }
  }
  if (envFlag(kActiveVar))
    return fail("the ptxas it was told to run runs ptxopt-ptxas again; set PTXOPT_PTXAS to NVIDIA's ptxas");
  std::string error;
  std::string ptxas = findRealPtxas(fromNvcc, error);
  if (ptxas.empty()) return fail(error);
  gOriginalCall.set(ptxas, args);
  setenv(kActiveVar, "1", 1);  // for the ptxas runs below (exec and child processes)

  PtxasCommand cmd = ptxopt::tools::parsePtxasCommand(args);
  Settings s = readSettings();
  if (cmd.version) {
    ptxopt::ProcessResult r = runPtxas(ptxas, args);
    if (r.ok()) r.out += versionLine(s);
    return endAs(r);
  }
  // Calls ptxopt stays out of go to ptxas as they are.
  if (cmd.help || cmd.inputs.empty() || !cmd.unseen.empty()) execPtxas(ptxas, args);
  if ((cmd.debug || cmd.noOptimization) && !s.optimizeDebug) execPtxas(ptxas, args);
  if (!s.error.empty()) {
    if (s.strict) return fail(s.error);
    warn(s.error + "; assembling the original PTX");
    execPtxas(ptxas, args);
  }
  if (s.flags.passes.empty() && s.flags.optLevel == 0) execPtxas(ptxas, args);  // PTXOPT_FLAGS=-O0: off

  ptxopt::PassManagerOptions pmo;
  ptxopt::PassManager pm;
  bool parsed = ptxopt::tools::pipelineOptions(s.flags, pmo, error);
  pmo.remarks = !s.remarks.empty();  // collected only for PTXOPT_REMARKS or --remarks
  if (!parsed || !pm.configure(pmo, error)) {
    if (s.strict) return fail("PTXOPT_FLAGS: " + error);
    warn("PTXOPT_FLAGS: " + error + "; assembling the original PTX");
    execPtxas(ptxas, args);
  }
  if (!makeTempDir(error)) {
    if (s.strict) return fail(error);
    warn(error + "; assembling the original PTX");
    execPtxas(ptxas, args);
  }
  std::atexit(removeTemporaries);

  // Optimize each input into the temporary directory; a failure keeps that input as it is.
  std::vector<std::string> originals(cmd.inputs.size()), replacements(cmd.inputs.size()), optimizedText(cmd.inputs.size());
  std::string remarks;
  size_t optimizedCount = 0;
  for (size_t k = 0; k < cmd.inputs.size(); ++k) {
    const std::string& path = cmd.inputs[k].path;
    replacements[k] = path;
    if (!ptxopt::readFile(path, originals[k], error)) {
      warn(error);
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    Optimized o = optimizeGuarded(originals[k], path, pm, s);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (s.verbose && !o.notes.empty()) std::fputs(o.notes.c_str(), stderr);
    if (!o.ok) {
      if (s.strict) return fail("cannot optimize " + path + ": " + o.reason);
      warn("cannot optimize " + path + ": " + o.reason + "; assembling the original PTX");
      if (!s.keepDir.empty())
        keepFiles(s.keepDir, originals[k], nullptr, argsJson(ptxas, args, path, k, "not optimized: " + o.reason));
      continue;
    }
    std::string tmp = std::string(gTempDir) + "/" + std::to_string(k) + "-" + baseName(path);
    gTempFiles.push_back(tmp);
    if (!ptxopt::writeFile(tmp, o.ptx, error)) {
      if (s.strict) return fail(error);
      warn(error + "; assembling the original PTX");
      continue;
    }
    if (s.verbose)
      std::fprintf(stderr, "%s: %s: optimized in %.1f ms by %s: %s\n", kTool, path.c_str(), ms,
                   ptxopt::tools::pipelineText(pm).c_str(), o.summary.c_str());
    replacements[k] = tmp;
    optimizedText[k] = std::move(o.ptx);
    remarks += o.remarks;
    ++optimizedCount;
  }
  if (optimizedCount == 0) {
    removeTemporaries();
    execPtxas(ptxas, args);
  }

  std::vector<std::string> optimizedArgs = cmd.withInputs(replacements);
  ptxopt::ProcessResult r = runPtxas(ptxas, optimizedArgs);
  bool rejected = !r.ok();
  ptxopt::ProcessResult original;
  if (rejected) {
    // Was it the optimized PTX? Then the original must assemble.
    original = runPtxas(ptxas, args);
    if (!original.ok()) return endAs(original);  // the input itself is what ptxas rejects
  }
  if (!s.keepDir.empty())
    for (size_t k = 0; k < cmd.inputs.size(); ++k)
      if (replacements[k] != cmd.inputs[k].path)
        keepFiles(s.keepDir, originals[k], &optimizedText[k],
                  argsJson(ptxas, optimizedArgs, cmd.inputs[k].path, k, rejected ? "rejected by ptxas" : "optimized"));
  if (!rejected) {
    if (!s.remarks.empty() && !remarks.empty() && !ptxopt::appendFile(s.remarks, remarks, error))
      warn("cannot append the remarks: " + error);
    return endAs(r);
  }
  // ptxas refused what ptxopt wrote: a bug of ptxopt's. Keep both sides for a report.
  std::string where;
  for (size_t k = 0; k < cmd.inputs.size(); ++k)
    if (replacements[k] != cmd.inputs[k].path) {
      std::string stem = keepFiles(s.findingsDir, originals[k], &optimizedText[k],
                                   argsJson(ptxas, optimizedArgs, cmd.inputs[k].path, k,
                                            "rejected by ptxas: " + ptxasComplaint(r.err)));
      if (!stem.empty()) where += (where.empty() ? "" : ", ") + stem + ".{in,opt}.ptx";
    }
  std::string message = "ptxas rejected the optimized PTX (" + ptxasComplaint(r.err) + ") but accepts the original";
  if (s.strict) {
    writeAll(2, r.err);
    return fail(message + (where.empty() ? "" : "; kept " + where));
  }
  warn(message + "; assembled the original; please report this with " + (where.empty() ? "the input" : where));
  return endAs(original);
}

}  // namespace

int main(int argc, char** argv) {
  std::string what;
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  if (!gOriginalCall.known() || envFlag("PTXOPT_STRICT")) {
    std::fprintf(stderr, "%s: internal error: %s\n", kTool, what.c_str());
    return 2;
  }
  warn("internal error: " + what + "; running ptxas on the original PTX");
  removeTemporaries();
  execPtxas(gOriginalCall.ptxas, gOriginalCall.args);
}
