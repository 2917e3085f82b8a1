#include "ptxopt/support/File.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxopt {

bool readFile(const std::string& path, std::string& contents, std::string& error) {
  contents.clear();
  bool isStdin = path == "-";
  FILE* f = isStdin ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  // A regular file is read in one piece, straight into the string; what is beyond its size
  // then (a file that grows, a pipe, stdin) in chunks.
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    contents.resize(static_cast<size_t>(st.st_size));
    contents.resize(std::fread(contents.data(), 1, contents.size(), f));
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) contents.append(buf, n);
  bool failed = std::ferror(f);
  int err = errno;
  if (!isStdin) std::fclose(f);
  if (failed) {
    error = "cannot read '" + path + "': " + std::strerror(err);
    return false;
  }
  return true;
}

bool writeFile(const std::string& path, std::string_view contents, std::string& error) {
  bool isStdout = path == "-";
  FILE* f = isStdout ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot open '" + path + "' for writing: " + std::strerror(errno);
    return false;
  }
  size_t written = std::fwrite(contents.data(), 1, contents.size(), f);
  bool ok = written == contents.size() && std::fflush(f) == 0;
  int err = errno;
  if (!isStdout) ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    error = "cannot write '" + path + "': " + std::strerror(err);
    return false;
  }
  return true;
}

bool appendFile(const std::string& path, std::string_view contents, std::string& error) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot open '" + path + "' for appending: " + std::strerror(errno);
    return false;
  }
  for (size_t done = 0; done < contents.size();) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "cannot write '" + path + "': " + std::strerror(errno);
      close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return true;
}

bool makeDirectory(const std::string& dir, std::string& error) {
  if (mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) return true;
  if (errno == ENOENT) {  // the parent first
    size_t slash = dir.find_last_of('/', dir.size() > 1 ? dir.size() - 2 : 0);
    if (slash != std::string::npos && slash > 0 && makeDirectory(dir.substr(0, slash), error) &&
        (mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST))
      return true;
  }
  error = "cannot create directory '" + dir + "': " + std::strerror(errno);
  return false;
}

bool isDirectory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

bool isRegularFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::vector<std::string> filesWithSuffix(const std::string& path, std::string_view suffix, bool recursive) {
  std::vector<std::string> out;
  auto matches = [&](const std::string& p) { return p.size() >= suffix.size() && p.ends_with(suffix); };
  std::error_code ec;
  if (isRegularFile(path)) {
    if (matches(path)) out.push_back(path);
    return out;
  }
  if (!isDirectory(path)) return out;
  auto visit = [&](const std::filesystem::directory_entry& e) {
    std::string p = e.path().string();
    if (e.is_regular_file(ec) && matches(p)) out.push_back(p);
  };
  if (recursive) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(path, ec)) visit(e);
  } else {
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) visit(e);
  }
  // Component by component ("d/x" before "d-a/y"), as a walk that sorts each directory would.
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) { return std::filesystem::path(a) < std::filesystem::path(b); });
  return out;
}

}  // namespace ptxopt
