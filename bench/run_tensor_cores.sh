#!/usr/bin/env bash
# Figures for docs/BENCHMARKS.md, issue #34: ptxrun on tensor-core GEMMs -- nvcc's wmma
# (tests/kernels/wmma_gemm.cu), inline ldmatrix + mma.sync (tests/kernels/mma_ldmatrix_gemm.cu)
# and Triton's matmul_fp16 (sm_80: ldmatrix + mma.sync; sm_90a: wgmma.mma_async) -- with the
# launches of bench/emu/*.json (both matmul_fp16 builds take the same one). The PTX is the corpus
# build's (build/corpus/nvcc-sm90, build/corpus/triton-sm80, build/corpus/triton-sm90a). Per kernel
# and host-thread count: the median, minimum and maximum wall time of RUNS whole-process runs
# (parsing and decoding included), and multiply-adds per second at the median.
# Usage: bench/run_tensor_cores.sh [BUILD_DIR] [RUNS]   (after `make build`)
set -euo pipefail
build=${1:-build}
runs=${2:-7}
dir=$(dirname "$0")/emu
# stats CMD...: "median min max" of the wall times of `runs` runs of CMD, in seconds.
stats() {
  local times=()
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    times+=("$(echo "$s $e" | awk '{print $2-$1}')")
  done
  printf "%s\n" "${times[@]}" | sort -g | awk '{t[NR]=$1} END {m=(NR%2)?t[(NR+1)/2]:(t[NR/2]+t[NR/2+1])/2; printf "%.3f %.3f %.3f", m, t[1], t[NR]}'
}
printf "%-22s %-4s %9s %9s %9s %14s %12s\n" kernel jobs median min max multiply-adds MAC/s
# label:spec:ptx:multiply-adds
for k in wmma_gemm:wmma_gemm:nvcc-sm90/wmma_gemm.ptx:33554432 \
         mma_ldmatrix_gemm:mma_ldmatrix_gemm:nvcc-sm90/mma_ldmatrix_gemm.ptx:16777216 \
         triton_matmul_fp16:triton_matmul_fp16:triton-sm80/matmul_fp16.ptx:16777216 \
         triton_matmul_sm90a:triton_matmul_fp16:triton-sm90a/matmul_fp16.ptx:16777216; do
  IFS=: read -r name spec ptx macs <<<"$k"
  ptx=$build/corpus/$ptx
  [ -f "$ptx" ] || { echo "$name: $ptx missing (build the corpus first)"; continue; }
  for j in 1 2; do
    read -r med lo hi <<<"$(stats "$build/ptxrun" --launch "$dir/$spec.json" "$ptx" -j "$j")"
    printf "%-22s %-4s %9s %9s %9s %14s %12s\n" "$name" "$j" "$med" "$lo" "$hi" "$macs" "$(echo "$macs $med" | awk '{printf "%.3g", $1/$2}')"
  done
done
