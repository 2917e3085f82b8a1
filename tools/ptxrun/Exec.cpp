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
  // --check-races: the stand-in writes the number of racy launches to a file at exit, and a
  // program that exits 0 after races makes ptxrun exit 4 (as `ptxrun --check-races` does).
  std::string raceReport;
  if (o.checkRaces) {
    setenv("PTXRUN_CHECK_RACES", "1", 1);
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ptxrun-races-XXXXXX";
    int fd = mkstemp(pattern.data());
    if (fd >= 0) {
      close(fd);
      raceReport = pattern;
      setenv("PTXRUN_RACE_REPORT", raceReport.c_str(), 1);
    }
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
  if (!raceReport.empty()) {
    std::string text;
    if (readFile(raceReport, text, error)) racyLaunches = std::strtoul(text.c_str(), nullptr, 10);
    unlink(raceReport.c_str());
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
