// Child processes: running an external program (ptxas) and running a piece of work in a
// forked child, so that a crash or a hang of the work is reported instead of taking the caller
// down (the differential fuzzer and its reducer). POSIX only.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ptxopt {

struct ProcessResult {
  enum class End { Exited, Signaled, TimedOut, CouldNotStart } end = End::CouldNotStart;
  int exitCode = -1;  // Exited
  int signal = 0;     // Signaled
  std::string out;    // standard output (runProcess) or what the work returned (runInChild)
  std::string err;    // standard error (runProcess)
  bool ok() const { return end == End::Exited && exitCode == 0; }
  // "exit 1", "signal 11 (Segmentation fault)", "timed out after 30 s", ...
  std::string describe() const;
};

// The directories of the PATH, in order (empty entries left out).
std::vector<std::string> searchPath();

// The path of the executable `name`: the first hit in `first`, then the PATH, then `last`;
// empty when there is none.
std::string findProgram(const std::string& name, const std::vector<std::string>& first = {},
                        const std::vector<std::string>& last = {});

// Runs argv[0] (looked up in PATH when it has no '/') with the arguments; standard input is
// empty. Killed after `timeoutSeconds` (0: no limit). `cwd`: the directory it runs in (empty:
// the caller's).
ProcessResult runProcess(const std::vector<std::string>& argv, unsigned timeoutSeconds = 0,
                         const std::string& cwd = {});

// As runProcess, without a time limit, but started with posix_spawn: no copy of the caller's
// page tables, which makes it the cheaper start for a caller with much memory mapped (and for
// one that runs once per compile, as ptxopt-ptxas does). The child is not killed with the
// caller. argv[0] must be a path.
ProcessResult spawnProcess(const std::vector<std::string>& argv);

// Runs `work` in a forked child and returns its result string in `out`. A crash is End::Signaled,
// a child that takes longer than `timeoutSeconds` (0: no limit) is killed (End::TimedOut). The
// caller must not hold other threads that the work needs.
ProcessResult runInChild(const std::function<std::string()>& work, unsigned timeoutSeconds);

// Runs work(0) ... work(count - 1), each in its own forked child, at most `jobs` at a time, and
// calls done(i, result) in the parent as each one ends (in the order they end).
void runInChildren(size_t count, unsigned jobs, unsigned timeoutSeconds, const std::function<std::string(size_t)>& work,
                   const std::function<void(size_t, ProcessResult&&)>& done);

}  // namespace ptxopt
