#!/usr/bin/env bash
# Installs the Debian packages that building and testing ptxopt need, when they are missing.
# Safe to run again: it only calls apt-get when something is absent.
set -euo pipefail

packages=(
  cmake ninja-build g++ make python3          # build
  python3-venv                                  # the project's .venv (Triton, numba-cuda)
  libcli11-dev nlohmann-json3-dev libfmt-dev    # flags, JSON, formatting
  libjemalloc-dev                               # ptxopt's allocator (static)
  libzstd-dev liblz4-dev                        # compressed PTX in CUDA fat binaries
  libgtest-dev libbenchmark-dev                 # unit tests, benchmarks
  llvm-14-tools                                 # lit and FileCheck
  clang-14 libclang-rt-14-dev                   # sanitizer build and libFuzzer
  graphviz                                      # `dot` for CFG pictures (optional at run time)
  chromium                                      # headless check that the ptxopt-bench report renders
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

# ---- Triton and numba-cuda, pinned, in the project's virtual environment .venv ----------------
# They compile tests/kernels/triton and tests/kernels/numba to PTX for the kernel corpus. The pins
# are in scripts/python-requirements.txt; .venv/ptxopt-requirements.txt is a copy of the file
# that was installed, so nothing happens while the two agree. Where the package index cannot be
# reached, this prints SKIPPED with the reason (kept in .venv.skipped for the build to repeat)
# and the tests that need those files say SKIPPED too.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
req="$root/scripts/python-requirements.txt"
stamp="$venv/ptxopt-requirements.txt"
skipped="$root/.venv.skipped"

venv_skip() {
  echo "setup: SKIPPED Triton/numba-cuda/nvdisasm in .venv: $1"
  echo "$1" >"$skipped"
}

venv_report() {
  local nvdisasm
  nvdisasm="$(readlink -f "$venv/bin/nvdisasm" 2>/dev/null || true)"
  echo "setup: .venv has triton $(grep -m1 '^triton==' "$req" | cut -d= -f3)," \
       "numba-cuda $(grep -m1 '^numba-cuda==' "$req" | cut -d= -f3); nvdisasm: ${nvdisasm:-not found}"
}

if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  venv_report
elif ! out="$(python3 -m venv "$venv" 2>&1)"; then
  venv_skip "python3 -m venv failed: $(echo "$out" | tail -n 1)"
else
  pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)
  # One cheap question to the index first, so that an unreachable index is a SKIPPED, not an error.
  if ! out="$("${pip[@]}" index versions triton --timeout 20 --retries 1 2>&1)"; then
    why="$(echo "$out" | grep -o -m1 -E "(Failed to establish a new connection|Temporary failure in name resolution|Name or service not known|Network is unreachable|Read timed out|timed out)[^')]*" || true)"
    venv_skip "the Python package index cannot be reached (pip: ${why:-$(echo "$out" | tail -n 1)})"
  else
    echo "setup: installing the pinned Python packages of scripts/python-requirements.txt into .venv"
    rm -f "$stamp"
    if ! "${pip[@]}" install --quiet --progress-bar off -r "$req"; then
      echo "setup: ERROR: pip could not install scripts/python-requirements.txt into .venv" >&2
      exit 1
    fi
    # nvdisasm comes in the wheel's own bin directory; give it a stable name.
    nvdisasm="$(find "$venv/lib" -path '*/nvidia/*/bin/nvdisasm' -type f | head -n 1)"
    if [ -n "$nvdisasm" ]; then ln -sf "$nvdisasm" "$venv/bin/nvdisasm"; fi
    cp "$req" "$stamp"
    rm -f "$skipped"
    venv_report
  fi
fi
