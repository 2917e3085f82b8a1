// Reading and writing whole files; "-" means standard input or output.
#pragma once

#include <string>
#include <string_view>

namespace ptxopt {

// Returns false and sets `error` (e.g. "cannot open 'x.ptx': No such file or directory").
bool readFile(const std::string& path, std::string& contents, std::string& error);
bool writeFile(const std::string& path, std::string_view contents, std::string& error);
// Creates the directory `dir` (and its missing parents) unless it exists.
bool makeDirectory(const std::string& dir, std::string& error);

}  // namespace ptxopt
