// ptxrun exec: runs an unmodified CUDA program with ptxrun's libcudart.so.13 in place of
// NVIDIA's (tools/cudart, docs/CUDART.md).
#include "Exec.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "ptxopt/cudart/Fatbin.h"
#include "ptxopt/support/File.h"

namespace ptxopt::tools {

namespace {

// The exit status of a program that ran to success with races (as `ptxrun --check-races`).
constexpr int kExitRaces = 4;

// The program's path as execvp would find it.
std::string resolveProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string candidate = (end > start ? p.substr(start, end - start) : ".") + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

// Where the stand-in is: $PTXRUN_CUDART, then cudart/ beside this executable (the build tree),
// then the directory the build configured.
std::string findShim() {
  if (const char* e = std::getenv("PTXRUN_CUDART")) return e;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, static_cast<size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/'));
    for (std::string c : {dir + "/cudart/libcudart.so.13", dir + "/../lib/ptxopt/libcudart.so.13"})
      if (access(c.c_str(), R_OK) == 0) return c;
  }
#ifdef PTXRUN_CUDART_DIR
  std::string built = std::string(PTXRUN_CUDART_DIR) + "/libcudart.so.13";
  if (access(built.c_str(), R_OK) == 0) return built;
#endif
  return "";
}

// The libcudart the loader gives `program` in this environment (LD_PRELOAD included), from its
// LD_TRACE_LOADED_OBJECTS listing; "another libcudart" when it cannot tell.
std::string loadedCudart(const std::string& program) {
  int fds[2];
  if (pipe(fds) != 0) return "another libcudart";
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
    execl(program.c_str(), program.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  close(fds[0]);
  if (pid > 0) waitpid(pid, nullptr, 0);
  for (size_t at = out.find("libcudart.so"); at != std::string::npos; at = out.find("libcudart.so", at + 1)) {
    size_t arrow = out.find("=> ", at), end = out.find(" (", arrow);
    size_t eol = out.find('\n', at);
    if (arrow != std::string::npos && arrow < eol && out.compare(arrow + 3, 9, "not found") == 0)
      return "no libcudart.so.13 (the loader finds none)";
    if (arrow != std::string::npos && arrow < eol && end != std::string::npos) return out.substr(arrow + 3, end - arrow - 3);
    size_t start = out.rfind('\t', at);  // a preloaded library is listed by its path
    if (start != std::string::npos && start < at) return out.substr(start + 1, out.find(' ', start) - start - 1);
  }
  return "another libcudart";
}

}  // namespace

int runExec(const ExecOptions& o) {
  if (o.command.empty()) {
    std::fprintf(stderr, "ptxrun: error: exec needs a program: ptxrun exec [options] -- ./program args...\n");
    return 1;
  }
  if (!o.profileOut.empty() && !o.passes.empty()) {
    std::fprintf(stderr, "ptxrun: error: --profile-out profiles the program as it was built: run it without --passes\n");
    return 1;
  }
  if (o.compare && o.passes.empty()) {
    std::fprintf(stderr, "ptxrun: error: --compare compares the modules as built with those --passes makes: give --passes too\n");
    return 1;
  }
  if ((!o.knobs.empty() || o.locSelf) && o.passes.empty()) {
    std::fprintf(stderr, "ptxrun: error: %s applies to the modules --passes makes: give --passes too\n",
                 o.locSelf ? "--loc-self" : "--knob");
    return 1;
  }
  for (const std::string& kv : o.knobs)
    if (kv.find('=') == std::string::npos || kv.find('.') > kv.find('=')) {
      std::fprintf(stderr, "ptxrun: error: --knob takes PASS.KNOB=VALUE, not '%s'\n", kv.c_str());
      return 1;
    }
  if (!o.profileUse.empty() && o.passes.empty()) {
    std::fprintf(stderr, "ptxrun: error: --profile-use steers the passes: give --passes too\n");
    return 1;
  }
  std::string program = resolveProgram(o.command[0]), bytes, error;
  if (!readFile(program, bytes, error)) {
    std::fprintf(stderr, "ptxrun: error: %s\n", error.c_str());
    return 1;
  }
  std::span<const uint8_t> file(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::vector<std::string> needed;
  if (!cudart::elfNeededLibraries(file, needed, error)) {
    std::fprintf(stderr, "ptxrun: error: %s is not a dynamically linked ELF program\n", program.c_str());
    return 1;
  }
  bool cudart = false;
  for (const std::string& n : needed) cudart |= n.rfind("libcudart.so", 0) == 0;
  if (!cudart) {
    std::vector<cudart::FatbinImage> images;
    bool hasFatbin = cudart::findFatbinImages(file, images, error);
    std::fprintf(stderr,
                 hasFatbin ? "ptxrun: error: %s links the CUDA runtime statically (nvcc's default): rebuild it with "
                             "`nvcc -cudart shared` so that ptxrun can stand in for libcudart.so.13\n"
                           : "ptxrun: error: %s does not use the CUDA runtime (no libcudart.so in its dynamic section)\n",
                 program.c_str());
    return 1;
  }
  std::string shim = findShim();
  if (shim.empty()) {
    std::fprintf(stderr, "ptxrun: error: ptxrun's libcudart.so.13 was not built (it needs the CUDA headers); set "
                         "PTXRUN_CUDART to its path\n");
    return 1;
  }
  // LD_PRELOAD: the stand-in is loaded first, and the program's DT_NEEDED libcudart.so.13 is
  // satisfied by it (same soname) whatever RPATH, RUNPATH or LD_LIBRARY_PATH would find.
  std::string preload = shim;
  if (const char* p = std::getenv("LD_PRELOAD"); p && *p) preload += std::string(":") + p;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("PTXRUN_JOBS", std::to_string(o.jobs).c_str(), 1);
  if (o.verbose) setenv("PTXRUN_VERBOSE", "1", 1);
  if (!o.passes.empty()) setenv("PTXRUN_PASSES", o.passes.c_str(), 1);
  if (!o.knobs.empty()) {
    std::string knobs;
    for (const std::string& kv : o.knobs) knobs += (knobs.empty() ? "" : ",") + kv;
    setenv("PTXRUN_KNOBS", knobs.c_str(), 1);
  }
  if (o.locSelf) setenv("PTXRUN_LOC_SELF", "1", 1);
  if (!o.profileUse.empty()) setenv("PTXRUN_PROFILE_USE", o.profileUse.c_str(), 1);
  if (!o.profileOut.empty()) setenv("PTXRUN_PROFILE_OUT", o.profileOut.c_str(), 1);
  if (o.compare) setenv("PTXRUN_COMPARE", "1", 1);
  if (!o.metrics.empty()) setenv("PTXRUN_METRICS", o.metrics.c_str(), 1);
  // PTXRUN_REPORT: a file the stand-in appends to: "stand-in" when it is loaded, "racy-launches
  // N" at exit. Without the first line the program ran on another libcudart, which is named;
  // with races, a program that exits 0 makes ptxrun exit 4 (as `ptxrun --check-races` does).
  if (!o.checkRaces.empty()) setenv("PTXRUN_CHECK_RACES", o.checkRaces == "strict" ? "strict" : "1", 1);
  std::string report;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ptxrun-report-XXXXXX";
  if (int fd = mkstemp(pattern.data()); fd >= 0) {
    close(fd);
    report = pattern;
    setenv("PTXRUN_REPORT", report.c_str(), 1);
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "ptxrun: error: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    std::fprintf(stderr, "ptxrun: error: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      std::fprintf(stderr, "ptxrun: error: waitpid: %s\n", std::strerror(errno));
      return 1;
    }
  unsigned long racyLaunches = 0;
  if (!report.empty()) {
    std::string text;
    if (readFile(report, text, error)) {
      if (size_t at = text.find("racy-launches "); at != std::string::npos) racyLaunches = std::strtoul(text.c_str() + at + 14, nullptr, 10);
      if (text.find("stand-in\n") == std::string::npos)
        std::fprintf(stderr, "ptxrun: warning: %s did not load ptxrun's libcudart.so.13 (%s) but %s: its results are not "
                             "ptxrun's\n",
                     program.c_str(), shim.c_str(), loadedCudart(program).c_str());
    }
    unlink(report.c_str());
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    std::fprintf(stderr, "ptxrun: %s was killed by signal %d (%s)\n", program.c_str(), sig, strsignal(sig));
    return 128 + sig;
  }
  if (WEXITSTATUS(status) == 0 && racyLaunches > 0) return kExitRaces;
  return WEXITSTATUS(status);
}

}  // namespace ptxopt::tools
