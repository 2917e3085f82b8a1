#!/usr/bin/env bash
# A/B: ptxrun speed before and after a change, on the kernels of bench/run_emulator.sh
# (bench/emu/compute and divergent), with 1 and 2 host threads: RUNS runs of each binary,
# interleaved so that the load of a shared machine falls on both alike; median [min-max] seconds.
# Usage: bench/ab_emulator.sh BEFORE_PTXRUN AFTER_PTXRUN [RUNS]
set -euo pipefail
A=$1; B=$2; runs=${3:-9}
for k in compute divergent; do
  for j in 1 2; do
    ta=(); tb=()
    for _ in $(seq $runs); do
      s=$(date +%s.%N); $A --launch bench/emu/$k.json bench/emu/$k.ptx -j $j >/dev/null; e=$(date +%s.%N); ta+=($(echo "$s $e" | awk '{print $2-$1}'))
      s=$(date +%s.%N); $B --launch bench/emu/$k.json bench/emu/$k.ptx -j $j >/dev/null; e=$(date +%s.%N); tb+=($(echo "$s $e" | awk '{print $2-$1}'))
    done
    sa=$(printf "%s\n" "${ta[@]}" | sort -g | awk '{t[NR]=$1} END {printf "%.3f [%.3f-%.3f]", t[(NR+1)/2], t[1], t[NR]}')
    sb=$(printf "%s\n" "${tb[@]}" | sort -g | awk '{t[NR]=$1} END {printf "%.3f [%.3f-%.3f]", t[(NR+1)/2], t[1], t[NR]}')
    echo "$k -j $j: before $sa  after $sb"
  done
done
