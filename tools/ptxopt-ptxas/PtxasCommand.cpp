#include "PtxasCommand.h"

#include <set>
#include <string_view>

#include "ptxopt/support/File.h"

namespace ptxopt::tools {
namespace {

// The options of ptxas 13.0 that take their value as the next argument when it is not written
// NAME=VALUE (`ptxas --help`: the options shown with a <value>, and the four cache options,
// which take one though the help does not show it).
const std::set<std::string_view> kValueOptions = {
    "--Ofast-compile", "-Ofc", "--allow-expensive-optimizations", "-allow-expensive-optimizations",
    "--device-function-maxrregcount", "-func-maxrregcount", "--device-stack-protector", "-device-stack-protector",
    "--entry", "-e", "--fmad", "-fmad", "--gpu-name", "-arch", "--input-as-string", "-ias", "--machine", "-m",
    "--maxntid", "-maxntid", "--maxrregcount", "-maxrregcount", "--minnctapersm", "-minnctapersm", "--opt-level",
    "-O", "--options-file", "-optf", "--output-file", "-o", "--position-independent-code", "-pic",
    "--register-usage-level", "-regUsageLevel", "--sanitize", "-sanitize", "--split-compile", "-split-compile",
    "--def-load-cache", "-dlcm", "--def-store-cache", "-dscm", "--force-load-cache", "-flcm", "--force-store-cache",
    "-fscm"};

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

}  // namespace

PtxasCommand parsePtxasCommand(std::vector<std::string> args) {
  PtxasCommand c;
  c.args = std::move(args);
  const std::vector<std::string>& a = c.args;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& arg = a[i];
    if (arg.size() > 1 && arg[0] == '-') {
      size_t eq = arg.find('=');
      std::string name = arg.substr(0, eq);
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (kValueOptions.count(name) && i + 1 < a.size()) {
        value = a[++i];
      } else if (name.size() > 2 && name.compare(0, 2, "-O") == 0 &&
                 name.find_first_not_of("0123456789", 2) == std::string::npos) {
        value = name.substr(2);  // -O3
        name = "-O";
      }
      if (name == "--version" || name == "-V") c.version = true;
      if (name == "--help" || name == "-h") c.help = true;
      if (name == "--device-debug" || name == "-g") c.debug = true;
      if ((name == "--opt-level" || name == "-O") && value == "0") c.noOptimization = true;
      if (name == "--input-as-string" || name == "-ias" || name == "--options-file" || name == "-optf")
        c.unseen = name;
      continue;
    }
    std::vector<std::string> parts = splitCommas(arg);
    bool files = true;
    for (const std::string& p : parts) files = files && !p.empty() && isRegularFile(p);
    if (!files) continue;
    for (size_t k = 0; k < parts.size(); ++k) c.inputs.push_back({i, k, parts[k]});
  }
  return c;
}

std::vector<std::string> PtxasCommand::withInputs(const std::vector<std::string>& replacements) const {
  std::vector<std::string> out = args;
  std::vector<std::vector<std::string>> parts(args.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Input& in = inputs[k];
    if (parts[in.arg].empty()) parts[in.arg] = splitCommas(args[in.arg]);
    parts[in.arg][in.part] = replacements[k];
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (parts[i].empty()) continue;
    std::string joined;
    for (size_t k = 0; k < parts[i].size(); ++k) joined += (k ? "," : "") + parts[i][k];
    out[i] = joined;
  }
  return out;
}

}  // namespace ptxopt::tools
