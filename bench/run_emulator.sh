#!/usr/bin/env bash
# Figures for docs/BENCHMARKS.md, issue #4: ptxrun's thread-instructions per second on a
# compute-bound kernel and on a divergent one, with 1 and 2 host threads (best of 5 runs; the
# wall time includes parsing and decoding, a few milliseconds).
# The kernels are bench/emu/*.cu; their PTX (nvcc 13.0, -arch=sm_90) is checked in beside them.
# Usage: bench/run_emulator.sh [BUILD_DIR]   (after `make build`)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
dir=$(dirname "$0")/emu
printf "%-10s %-4s %16s %10s %9s %18s\n" kernel jobs thread_instr simt_eff seconds thread_instr/s
for k in compute divergent; do
  m=$("$build/ptxrun" --launch "$dir/$k.json" "$dir/$k.ptx" --metrics)
  ti=$(echo "$m" | sed -n 's/.*"thread_instructions": \([0-9]*\).*/\1/p')
  eff=$(echo "$m" | sed -n 's/.*"simt_efficiency": \([0-9.]*\).*/\1/p')
  for j in 1 2; do
    t=$(best "$build/ptxrun" --launch "$dir/$k.json" "$dir/$k.ptx" -j "$j")
    printf "%-10s %-4s %16s %10.3f %9.3f %18s\n" "$k" "$j" "$ti" "$eff" "$t" "$(echo "$ti $t" | awk '{printf "%.3g", $1/$2}')"
  done
done
echo "general interpreter only (--no-fast-paths), 1 thread:"
for k in compute divergent; do
  t=$(best "$build/ptxrun" --launch "$dir/$k.json" "$dir/$k.ptx" -j 1 --no-fast-paths)
  echo "  $k: $t s"
done
