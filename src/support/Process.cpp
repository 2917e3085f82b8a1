#include "ptxopt/support/Process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>

extern char** environ;

namespace ptxopt {
namespace {

using Clock = std::chrono::steady_clock;

// Reads the given pipes until both close or the deadline passes; false on timeout.
bool drain(int fdOut, int fdErr, std::string& out, std::string& err, Clock::time_point deadline, bool limited) {
  pollfd fds[2] = {{fdOut, POLLIN, 0}, {fdErr, POLLIN, 0}};
  int open = (fdOut >= 0) + (fdErr >= 0);
  if (fdOut < 0) fds[0].fd = -1;
  if (fdErr < 0) fds[1].fd = -1;
  char buf[65536];
  while (open > 0) {
    int wait = -1;
    if (limited) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait = static_cast<int>(std::min<long long>(left, 1000));
    }
    int r = poll(fds, 2, wait);
    if (r < 0) {
      if (errno == EINTR) continue;
      return true;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n > 0) {
        (k == 0 ? out : err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[k].fd = -1;
        --open;
      }
    }
  }
  return true;
}

// Two close-on-exec pipes for a child's standard output and error; false (none open) on failure.
bool outputPipes(int out[2], int err[2]) {
  if (pipe2(out, O_CLOEXEC) != 0) return false;
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return false;
  }
  return true;
}

void finish(pid_t pid, bool timedOut, ProcessResult& r) {
  if (timedOut) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    r.end = ProcessResult::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    r.end = ProcessResult::End::Signaled;
    r.signal = WTERMSIG(status);
  } else {
    r.end = ProcessResult::End::Exited;
    r.exitCode = WEXITSTATUS(status);
  }
}

}  // namespace

std::string ProcessResult::describe() const {
  switch (end) {
    case End::Exited: return "exit " + std::to_string(exitCode);
    case End::Signaled: return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    case End::TimedOut: return "timed out";
    case End::CouldNotStart: return "could not start";
  }
  return "?";
}

std::vector<std::string> searchPath() {
  std::vector<std::string> dirs;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  for (size_t start = 0; start <= p.size();) {
    size_t colon = p.find(':', start);
    if (colon == std::string::npos) colon = p.size();
    if (colon > start) dirs.push_back(p.substr(start, colon - start));
    start = colon + 1;
  }
  return dirs;
}

std::string findProgram(const std::string& name, const std::vector<std::string>& first,
                        const std::vector<std::string>& last) {
  std::vector<std::string> dirs = first;
  for (std::string& d : searchPath()) dirs.push_back(std::move(d));
  dirs.insert(dirs.end(), last.begin(), last.end());
  for (const std::string& d : dirs) {
    std::string candidate = d + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

ProcessResult runProcess(const std::vector<std::string>& argv, unsigned timeoutSeconds, const std::string& cwd) {
  ProcessResult r;
  if (argv.empty()) return r;
  int out[2], err[2];
  if (!outputPipes(out, err)) return r;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // Killed with the caller: a fuzzing child that is killed for taking too long must not
    // leave a hanging ptxas behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      // No allocation between fork and exec: the caller may have other threads.
      const char* why = std::strerror(errno);
      for (const char* piece : {"cannot enter ", cwd.c_str(), ": ", why, "\n"})
        (void)!write(2, piece, std::strlen(piece));
      _exit(127);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    return r;
  }
  auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds);
  bool inTime = drain(out[0], err[0], r.out, r.err, deadline, timeoutSeconds > 0);
  close(out[0]);
  close(err[0]);
  finish(pid, !inTime, r);
  if (r.end == ProcessResult::End::Exited && r.exitCode == 127 && r.out.empty() && r.err.empty())
    r.end = ProcessResult::End::CouldNotStart;
  return r;
}

ProcessResult spawnProcess(const std::vector<std::string>& argv) {
  ProcessResult r;
  if (argv.empty()) return r;
  int out[2], err[2];
  if (!outputPipes(out, err)) return r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (rc == 0) drain(out[0], err[0], r.out, r.err, Clock::time_point(), false);
  close(out[0]);
  close(err[0]);
  if (rc != 0) {
    r.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  finish(pid, false, r);
  return r;
}

void runInChildren(size_t count, unsigned jobs, unsigned timeoutSeconds, const std::function<std::string(size_t)>& work,
                   const std::function<void(size_t, ProcessResult&&)>& done) {
  struct Running {
    size_t index;
    pid_t pid;
    int fd;
    std::string out;
    Clock::time_point deadline;
  };
  std::vector<Running> running;
  size_t next = 0;
  jobs = std::max(1u, jobs);
  auto end = [&](size_t k, bool timedOut) {
    Running r = std::move(running[k]);
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    close(r.fd);
    ProcessResult result;
    result.out = std::move(r.out);
    finish(r.pid, timedOut, result);
    done(r.index, std::move(result));
  };
  while (next < count || !running.empty()) {
    while (next < count && running.size() < jobs) {
      size_t index = next++;
      int fds[2];
      pid_t pid = -1;
      if (pipe2(fds, O_CLOEXEC) == 0) {
        pid = fork();
        if (pid == 0) {
          close(fds[0]);
          std::string result = work(index);
          size_t written = 0;
          while (written < result.size()) {
            ssize_t n = write(fds[1], result.data() + written, result.size() - written);
            if (n <= 0 && errno != EINTR) break;
            if (n > 0) written += static_cast<size_t>(n);
          }
          close(fds[1]);
          _exit(0);  // no destructors or atexit handlers of the parent's state
        }
        close(fds[1]);
        if (pid < 0) close(fds[0]);
      }
      if (pid < 0) {
        done(index, ProcessResult{});  // CouldNotStart
        continue;
      }
      running.push_back({index, pid, fds[0], {}, Clock::now() + std::chrono::seconds(timeoutSeconds)});
    }
    if (running.empty()) continue;
    std::vector<pollfd> fds;
    for (const Running& r : running) fds.push_back({r.fd, POLLIN, 0});
    int r = poll(fds.data(), fds.size(), 200);
    if (r < 0 && errno != EINTR) break;
    char buf[65536];
    for (size_t k = running.size(); k-- > 0;) {
      if (r > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = read(running[k].fd, buf, sizeof buf);
        if (n > 0) {
          running[k].out.append(buf, static_cast<size_t>(n));
          continue;
        }
        if (n == 0 || errno != EINTR) {
          end(k, false);
          continue;
        }
      }
      if (timeoutSeconds > 0 && Clock::now() > running[k].deadline) end(k, true);
    }
  }
}

ProcessResult runInChild(const std::function<std::string()>& work, unsigned timeoutSeconds) {
  ProcessResult out;
  runInChildren(1, 1, timeoutSeconds, [&](size_t) { return work(); }, [&](size_t, ProcessResult&& r) { out = std::move(r); });
  return out;
}

}  // namespace ptxopt
