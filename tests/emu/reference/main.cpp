// ptxopt_reference: runs the plain C++ reference implementation of a corpus kernel under a launch
// spec and writes the buffers it would leave behind.
//
//   ptxopt_reference --spec tests/emu/specs/divergent_if_else.json --out DIR
//       writes DIR/<param>.bin for every buffer parameter (raw little-endian bytes) and
//       DIR/stdout.txt (what the kernel's printf calls print, possibly empty)
//   ptxopt_reference ... --no-contract
//       models a build that did not contract a * b + c into fma (nvcc -G)
//   ptxopt_reference --list
//       prints the registered reference names, one a line
//
// The reference is chosen by the spec file's stem: the file name without its directory and
// without the final ".json" ("template_kernel.float.json" -> "template_kernel.float").
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "Reference.h"
#include "ptxopt/emu/LaunchSpec.h"

namespace ptxopt::ref {
std::map<std::string, ReferenceFn>& registry() {
  static std::map<std::string, ReferenceFn> r;
  return r;
}
}  // namespace ptxopt::ref

namespace {

int usage(const char* argv0) {
  std::cerr << "usage: " << argv0 << " --spec SPEC.json --out DIR [--no-contract]\n"
            << "       " << argv0 << " --list\n";
  return 1;
}

int fail(const std::string& message) {
  std::cerr << "ptxopt_reference: " << message << "\n";
  return 1;
}

std::string specStem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  const std::string ext = ".json";
  if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
    name.resize(name.size() - ext.size());
  return name;
}

bool writeFile(const std::filesystem::path& path, const void* data, size_t size, std::string& error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot open '" + path.string() + "' for writing";
    return false;
  }
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    error = "cannot write '" + path.string() + "'";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ptxopt;
  std::string specPath, outDir;
  bool list = false, contracted = true;
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a == "--list") {
      list = true;
    } else if (a == "--spec" && k + 1 < argc) {
      specPath = argv[++k];
    } else if (a == "--out" && k + 1 < argc) {
      outDir = argv[++k];
    } else if (a == "--no-contract") {
      contracted = false;
    } else if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return 0;
    } else {
      std::cerr << "ptxopt_reference: unexpected argument '" << a << "'\n";
      return usage(argv[0]);
    }
  }
  if (list) {
    for (const auto& [name, fn] : ref::registry()) std::cout << name << "\n";
    return 0;
  }
  if (specPath.empty() || outDir.empty()) return usage(argv[0]);

  emu::LaunchSpec spec;
  std::string error;
  if (!emu::loadLaunchSpec(specPath, spec, error)) return fail(error);

  std::string stem = specStem(specPath);
  auto it = ref::registry().find(stem);
  if (it == ref::registry().end())
    return fail("no reference implementation named '" + stem + "' (for " + specPath + "); see --list");

  ref::RefLaunch launch(spec);
  launch.contracted = contracted;
  // Buffers and the texels of textures and surfaces (a reference reads those; a surface's texels
  // are a result too, written below).
  auto hasBytes = [](const emu::ParamSpec& p) {
    return p.kind == emu::ParamSpec::Kind::Buffer || p.kind == emu::ParamSpec::Kind::Texture;
  };
  auto isResult = [](const emu::ParamSpec& p) {
    return p.kind == emu::ParamSpec::Kind::Buffer || (p.kind == emu::ParamSpec::Kind::Texture && p.texture.surface);
  };
  for (const emu::ParamSpec& p : spec.params) {
    if (!hasBytes(p)) continue;
    if (launch.buffers.count(p.name)) return fail(specPath + ": duplicate buffer parameter '" + p.name + "'");
    std::vector<uint8_t> bytes;
    if (!emu::initialBufferContents(p, bytes, error)) return fail(specPath + ": " + error);
    launch.buffers.emplace(p.name, std::move(bytes));
  }

  try {
    it->second(launch);
  } catch (const std::exception& e) {
    return fail("reference '" + stem + "' failed: " + e.what());
  }

  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec) return fail("cannot create directory '" + outDir + "': " + ec.message());
  for (const emu::ParamSpec& p : spec.params) {
    if (!isResult(p)) continue;
    const std::vector<uint8_t>& bytes = launch.buffers.at(p.name);
    if (bytes.size() != p.count * emu::elemBytes(p.type))
      return fail("reference '" + stem + "' changed the size of buffer '" + p.name + "'");
    if (!writeFile(std::filesystem::path(outDir) / (p.name + ".bin"), bytes.data(), bytes.size(), error))
      return fail(error);
  }
  if (!writeFile(std::filesystem::path(outDir) / "stdout.txt", launch.stdoutText.data(), launch.stdoutText.size(), error))
    return fail(error);
  return 0;
}
