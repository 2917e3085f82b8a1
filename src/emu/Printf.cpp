#include "Printf.h"

#include <cstdio>
#include <cstring>

namespace ptxopt::emu {

// vprintf's argument buffer follows the C calling convention of CUDA: each argument after the
// default promotions (char/short/int: 4 bytes, long/long long/double/pointers: 8 bytes),
// aligned to its size.
bool formatPrintf(const std::string& fmt, const uint8_t* args, size_t size, const StringReader& readString,
                  std::string& out, std::string& error) {
  size_t pos = 0;
  auto take = [&](size_t bytes, uint64_t& v) {
    pos = (pos + bytes - 1) / bytes * bytes;
    if (pos + bytes > size) {
      error = "printf reads past its argument buffer";
      return false;
    }
    v = 0;
    std::memcpy(&v, args + pos, bytes);
    pos += bytes;
    return true;
  };
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%') {
      out += c;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    size_t start = i++;
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i])) ++i;
    while (i < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[i])) || fmt[i] == '*')) ++i;
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) ++i;
    }
    int longs = 0;
    bool half = false;
    while (i < fmt.size() && std::strchr("hlLqjzt", fmt[i])) {
      if (fmt[i] == 'l' || fmt[i] == 'q' || fmt[i] == 'j' || fmt[i] == 'z' || fmt[i] == 't' || fmt[i] == 'L') ++longs;
      if (fmt[i] == 'h') half = true;
      ++i;
    }
    if (i >= fmt.size()) {
      error = "printf format ends inside a conversion";
      return false;
    }
    char conv = fmt[i];
    std::string spec = fmt.substr(start, i - start);
    // Rebuild the specification without length modifiers and print with the host printf.
    std::string clean;
    for (char ch : spec)
      if (!std::strchr("hlLqjzt", ch)) clean += ch;
    if (clean.find('*') != std::string::npos) {
      error = "printf '*' widths are not supported";
      return false;
    }
    char buf[512];
    uint64_t v = 0;
    auto hostFormat = [](const std::string& f, const char* str) {
      int n = std::snprintf(nullptr, 0, f.c_str(), str);
      std::string r(n > 0 ? static_cast<size_t>(n) : 0, '\0');
      if (n > 0) std::snprintf(r.data(), r.size() + 1, f.c_str(), str);
      return r;
    };
    switch (conv) {
      case 'd':
      case 'i': {
        if (!take(longs ? 8 : 4, v)) return false;
        long long x = longs ? static_cast<long long>(static_cast<int64_t>(v)) : static_cast<int32_t>(v);
        if (half) x = static_cast<short>(x);
        std::snprintf(buf, sizeof buf, (clean + "lld").c_str(), x);
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        if (!take(longs ? 8 : 4, v)) return false;
        unsigned long long x = longs ? v : static_cast<uint32_t>(v);
        if (half) x = static_cast<unsigned short>(x);
        std::snprintf(buf, sizeof buf, (clean + "ll" + conv).c_str(), x);
        break;
      }
      case 'c': {
        if (!take(4, v)) return false;
        std::snprintf(buf, sizeof buf, (clean + "c").c_str(), static_cast<int>(static_cast<uint32_t>(v)));
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (!take(8, v)) return false;
        double d;
        std::memcpy(&d, &v, 8);
        std::snprintf(buf, sizeof buf, (clean + conv).c_str(), d);
        break;
      }
      case 'p': {
        if (!take(8, v)) return false;
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
        break;
      }
      case 's': {
        if (!take(8, v)) return false;
        std::string str = v ? readString(v) : std::string("(null)");
        out += hostFormat(clean + "s", str.c_str());
        continue;
      }
      default:
        error = std::string("unsupported printf conversion '%") + conv + "'";
        return false;
    }
    out += buf;
  }
  return true;
}

}  // namespace ptxopt::emu
