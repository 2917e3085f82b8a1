#pragma once

namespace ptxopt {
inline constexpr const char* kVersion = "0.1.0";
}
