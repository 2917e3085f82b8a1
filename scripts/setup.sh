#!/usr/bin/env bash
# Installs the Debian packages that building and testing ptxopt need, when they are missing.
# Safe to run again: it only calls apt-get when something is absent.
set -euo pipefail

packages=(
  cmake ninja-build g++ make python3          # build
  libcli11-dev nlohmann-json3-dev libfmt-dev    # flags, JSON, formatting
  libgtest-dev libbenchmark-dev                 # unit tests, benchmarks
  llvm-14-tools                                 # lit and FileCheck
  clang-14 libclang-rt-14-dev                   # sanitizer build and libFuzzer
  graphviz                                      # `dot` for CFG pictures (optional at run time)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: all Debian packages present"
fi

# The CUDA toolkit (nvcc, ptxas) is not a Debian package here; tests that need it say SKIPPED.
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null 2>&1; then
  echo "setup: CUDA toolkit found ($( (command -v nvcc || echo /usr/local/cuda/bin/nvcc) ))"
else
  echo "setup: WARNING: nvcc/ptxas not found; the kernel corpus and every ptxas check will be SKIPPED"
fi
