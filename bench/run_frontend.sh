#!/usr/bin/env bash
# Front-end figures for docs/BENCHMARKS.md: parse/print throughput, peak heap, peak RSS and
# scaling on 1x, 10x and 100x the largest corpus file, and the time ratio to ptxas.
# Usage: bench/run_frontend.sh [BUILD_DIR]   (after `make build`)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
src=$build/corpus/cccl-sm90/thrust_sort.ptx
[ -f "$src" ] || { echo "missing $src: build the corpus first (make build, needs nvcc)"; exit 1; }
work=$build/bench-inputs
mkdir -p "$work"
cp "$src" "$work/x1.ptx"
python3 "$(dirname "$0")/make_scaled.py" "$src" 10 "$work/x10.ptx"
python3 "$(dirname "$0")/make_scaled.py" "$src" 100 "$work/x100.ptx"
ls -l "$work"/x1.ptx "$work"/x10.ptx "$work"/x100.ptx | awk '{print $5, $9}'

echo "== Google Benchmark: parse, print, parse+print (MB/s of input text; peak heap of the IR)"
"$build/bench/bench_parse_print" --input="$work/x1.ptx" --input="$work/x10.ptx" --input="$work/x100.ptx" \
  --benchmark_min_time=1

echo "== whole ptxopt process (read, parse, print, write): seconds and peak RSS"
for f in x1 x10 x100; do
  /usr/bin/time -f "$f: %e s, peak RSS %M KB" "$build/ptxopt" "$work/$f.ptx" -o /dev/null
done

if [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "== ratio to ptxas on x1 (best of 5)"
  t_ptxas=$(best /usr/local/cuda/bin/ptxas -arch=sm_90 "$work/x1.ptx" -o "$work/x1.cubin")
  t_ptxopt=$(best "$build/ptxopt" "$work/x1.ptx" -o "$work/x1.out.ptx")
  echo "ptxas -arch=sm_90: ${t_ptxas} s; ptxopt (parse+print): ${t_ptxopt} s; ratio $(echo "$t_ptxas $t_ptxopt" | awk '{printf "%.0f", $1/$2}')x"
else
  echo "SKIPPED: ptxas not found, no ratio"
fi
