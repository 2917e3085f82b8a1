// Diagnostics for users: `file:line:col: error: message`.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxopt {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based; 0 = unknown
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  SourceLoc loc;
  std::string message;
};

// Formats one diagnostic the way compilers do: `file:line:col: error: message`.
std::string formatDiagnostic(const Diagnostic& d);

class DiagEngine {
 public:
  void report(Severity sev, std::string file, SourceLoc loc, std::string message);
  void error(std::string file, SourceLoc loc, std::string message) {
    report(Severity::Error, std::move(file), loc, std::move(message));
  }
  void warning(std::string file, SourceLoc loc, std::string message) {
    report(Severity::Warning, std::move(file), loc, std::move(message));
  }
  bool hasErrors() const { return errors_ > 0; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  // All diagnostics, one per line.
  std::string str() const;

 private:
  std::vector<Diagnostic> diags_;
  unsigned errors_ = 0;
};

// Thrown inside the front end to abandon a parse; never escapes the library's entry points.
struct FatalDiagnostic : std::runtime_error {
  FatalDiagnostic(SourceLoc l, const std::string& msg) : std::runtime_error(msg), loc(l) {}
  SourceLoc loc;
};

}  // namespace ptxopt
