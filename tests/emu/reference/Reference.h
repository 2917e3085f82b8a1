// Plain C++ reference implementations of the corpus kernels, for checking the emulator.
//
// Each kernel of tests/kernels/ has a launch spec in tests/emu/specs/ and a reference function
// registered here under the spec's name (the spec file's stem, e.g. "divergent_if_else" or
// "template_kernel.float"). The driver (ptxopt_reference) loads a spec, builds the initial
// buffers exactly as the emulator does (ptxopt::emu::initialBufferContents), calls the
// reference, and writes every buffer as <param name>.bin (and printf output as stdout.txt).
// The reference computes results directly in C++ -- never by interpreting PTX.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptxopt/emu/LaunchSpec.h"

namespace ptxopt::ref {

struct RefLaunch {
  const emu::LaunchSpec& spec;
  std::map<std::string, std::vector<uint8_t>> buffers;  // by parameter name, initial contents
  std::string stdoutText;                               // what the kernel's printf calls print
  // Whether the PTX under test had a * b + c contracted into fma (nvcc's optimized builds) or
  // kept as a rounded multiply and an add (-G). Explicit fmaf()/fma() calls are fma either way.
  bool contracted = true;

  explicit RefLaunch(const emu::LaunchSpec& s) : spec(s) {}

  // A buffer parameter viewed as elements of T (sizeof(T) must match the spec's element type).
  template <typename T>
  std::span<T> buf(const std::string& name) {
    auto it = buffers.find(name);
    if (it == buffers.end()) throw std::runtime_error("no buffer parameter '" + name + "'");
    const emu::ParamSpec& p = param(name);
    if (sizeof(T) != emu::elemBytes(p.type)) throw std::runtime_error("element size mismatch for '" + name + "'");
    return {reinterpret_cast<T*>(it->second.data()), it->second.size() / sizeof(T)};
  }
  // A scalar parameter's value converted to T.
  template <typename T>
  T scalar(const std::string& name) const {
    const emu::ParamSpec& p = param(name);
    if (p.kind != emu::ParamSpec::Kind::Scalar) throw std::runtime_error("'" + name + "' is not a scalar");
    uint8_t raw[8] = {};
    std::string err;
    if (!emu::encodeNumber(p.value, p.type, raw, err)) throw std::runtime_error(err);
    T out{};
    std::memcpy(&out, raw, sizeof(T) < 8 ? sizeof(T) : 8);
    return out;
  }
  // Raw bytes of a by-value (struct) parameter.
  const std::vector<uint8_t>& bytes(const std::string& name) const { return param(name).bytes; }

  std::array<uint32_t, 3> grid() const { return spec.grid; }
  std::array<uint32_t, 3> block() const { return spec.block; }

  const emu::ParamSpec& param(const std::string& name) const {
    for (const emu::ParamSpec& p : spec.params)
      if (p.name == name) return p;
    throw std::runtime_error("no parameter '" + name + "' in " + spec.path);
  }
};

using ReferenceFn = std::function<void(RefLaunch&)>;
std::map<std::string, ReferenceFn>& registry();

struct Registrar {
  Registrar(const char* name, ReferenceFn fn) { registry().emplace(name, std::move(fn)); }
};

}  // namespace ptxopt::ref

#define PTXOPT_REF_CONCAT2(a, b) a##b
#define PTXOPT_REF_CONCAT(a, b) PTXOPT_REF_CONCAT2(a, b)
// PTXOPT_REFERENCE("divergent_if_else") { auto in = L.buf<int32_t>("in"); ... }
// Names numbered by __COUNTER__, not __LINE__: a unity build puts many reference files in one
// translation unit.
#define PTXOPT_REFERENCE(NAME) PTXOPT_REFERENCE_N(NAME, __COUNTER__)
#define PTXOPT_REFERENCE_N(NAME, N)                                                               \
  static void PTXOPT_REF_CONCAT(ptxoptRef_, N)(::ptxopt::ref::RefLaunch & L);                     \
  static ::ptxopt::ref::Registrar PTXOPT_REF_CONCAT(ptxoptRefReg_, N)(                            \
      NAME, PTXOPT_REF_CONCAT(ptxoptRef_, N));                                                    \
  static void PTXOPT_REF_CONCAT(ptxoptRef_, N)([[maybe_unused]] ::ptxopt::ref::RefLaunch & L)
