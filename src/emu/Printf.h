// printf through vprintf: the format string and the packed argument buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ptxopt::emu {

// `readString` fetches the NUL-terminated string at a device address for %s (it reports its
// own faults by throwing).
using StringReader = std::function<std::string(uint64_t address)>;
bool formatPrintf(const std::string& fmt, const uint8_t* args, size_t size, const StringReader& readString,
                  std::string& out, std::string& error);

}  // namespace ptxopt::emu
