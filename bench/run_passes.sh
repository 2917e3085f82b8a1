#!/usr/bin/env bash
# Figures for docs/BENCHMARKS.md, issue #3: -O1 on the largest corpus file against ptxas, and
# the analyses and -O1 on generated functions of 12,500 to 100,000 blocks.
# Usage: bench/run_passes.sh [BUILD_DIR]   (after `make build`)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
src=$build/corpus/cccl-sm90/thrust_sort.ptx
[ -f "$src" ] || { echo "missing $src: build the corpus first (make build, needs nvcc)"; exit 1; }
echo "== -O1 on $(basename "$src") ($(stat -c %s "$src") bytes), best of 5"
t0=$(best "$build/ptxopt" -O0 "$src" -o /dev/null)
t1=$(best "$build/ptxopt" -O1 "$src" -o /dev/null)
echo "ptxopt -O0 (parse+print): $t0 s; ptxopt -O1: $t1 s"
"$build/ptxopt" -O1 "$src" -o /dev/null --time-passes --stats 2>&1 | sed -n '/pass counters/,$p'
if [ -x /usr/local/cuda/bin/ptxas ]; then
  tp=$(best /usr/local/cuda/bin/ptxas -arch=sm_90 "$src" -o /dev/null)
  echo "ptxas -arch=sm_90: $tp s; ratio ptxas / ptxopt -O1: $(echo "$tp $t1" | awk '{printf "%.0f", $1/$2}')x"
fi
echo "== analyses on generated functions (Google Benchmark)"
"$build/bench/bench_analyses" --benchmark_min_time=0.2
