#include "ptxopt/support/Diagnostics.h"

namespace ptxopt {

std::string formatDiagnostic(const Diagnostic& d) {
  std::string out = d.file.empty() ? std::string("<input>") : d.file;
  if (d.loc.line) {
    out += ':' + std::to_string(d.loc.line);
    if (d.loc.col) out += ':' + std::to_string(d.loc.col);
  }
  switch (d.severity) {
    case Severity::Error: out += ": error: "; break;
    case Severity::Warning: out += ": warning: "; break;
    case Severity::Note: out += ": note: "; break;
  }
  out += d.message;
  return out;
}

void DiagEngine::report(Severity sev, std::string file, SourceLoc loc, std::string message) {
  if (sev == Severity::Error) ++errors_;
  diags_.push_back(Diagnostic{sev, std::move(file), loc, std::move(message)});
}

std::string DiagEngine::str() const {
  std::string out;
  for (const Diagnostic& d : diags_) {
    out += formatDiagnostic(d);
    out += '\n';
  }
  return out;
}

}  // namespace ptxopt
