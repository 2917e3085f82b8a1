// Reading and writing whole files; "-" means standard input or output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptxopt {

// Returns false and sets `error` (e.g. "cannot open 'x.ptx': No such file or directory").
bool readFile(const std::string& path, std::string& contents, std::string& error);
bool writeFile(const std::string& path, std::string_view contents, std::string& error);
// Appends `contents` to `path` (created if missing) in one write(2) with O_APPEND, so that
// processes appending side by side do not interleave their texts.
bool appendFile(const std::string& path, std::string_view contents, std::string& error);
// Creates the directory `dir` (and its missing parents) unless it exists.
bool makeDirectory(const std::string& dir, std::string& error);
bool isDirectory(const std::string& path);
bool isRegularFile(const std::string& path);
// The regular files whose names end in `suffix`, sorted: `path` itself when it is one, else the
// files of the directory `path` (and of its subdirectories when `recursive`). Empty when `path`
// does not exist.
std::vector<std::string> filesWithSuffix(const std::string& path, std::string_view suffix, bool recursive);

}  // namespace ptxopt
