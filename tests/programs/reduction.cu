// reduction: a weighted sum, sum(coef[i % 8] * x[i]), in two passes: a shared-memory tree
// reduction per block (with __syncthreads between the levels) writing one partial per block,
// then one block reducing the partials into a __device__ global. The coefficients are a
// __constant__ array set with cudaMemcpyToSymbol (the second round changes half of them with an
// offset); a __device__ counter of finished blocks is zeroed with cudaMemcpyToSymbol, read back
// through cudaGetSymbolAddress and cudaMemcpy; the total is read with cudaMemcpyFromSymbol.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PROGRAM_NAME "reduction"
#include "check.h"

constexpr int kThreads = 128;

__constant__ int coef[8];
__device__ long long total;
__device__ unsigned blocksDone;

// Each thread sums a grid-stride slice, then the block reduces its kThreads values in shared
// memory; thread 0 writes the block's partial and counts the block.
__global__ void reduceBlocks(const int* x, long long* partial, int n) {
  __shared__ long long s[kThreads];
  int t = threadIdx.x;
  long long v = 0;
  for (int i = blockIdx.x * kThreads + t; i < n; i += gridDim.x * kThreads) v += (long long)coef[i % 8] * x[i];
  s[t] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    atomicAdd(&blocksDone, 1u);
  }
}

// One block: the partials into `total`.
__global__ void reducePartials(const long long* partial, int m) {
  __shared__ long long s[kThreads];
  int t = threadIdx.x;
  long long v = 0;
  for (int i = t; i < m; i += kThreads) v += partial[i];
  s[t] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) total = s[0];
}

int main() {
  const int n = 4000, blocks = 12;
  static int hx[n];
  unsigned seed = 7;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    hx[i] = int(seed >> 8) % 20001 - 10000;
  }
  int hcoef[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  int* dx;
  long long* dpartial;
  CUDA_CHECK(cudaMalloc(&dx, sizeof hx));
  CUDA_CHECK(cudaMalloc(&dpartial, blocks * sizeof(long long)));
  CUDA_CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(coef, hcoef, sizeof hcoef));
  const unsigned zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(blocksDone, &zero, sizeof zero));
  unsigned* dcount = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&dcount), blocksDone));

  int wrong = 0;
  long long got = 0, want = 0;
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      // The last four coefficients only, through the offset.
      const int upper[4] = {10, 20, 30, 40};
      CUDA_CHECK(cudaMemcpyToSymbol(coef, upper, sizeof upper, 4 * sizeof(int)));
      for (int k = 0; k < 4; ++k) hcoef[4 + k] = upper[k];
    }
    reduceBlocks<<<blocks, kThreads>>>(dx, dpartial, n);
    CUDA_CHECK(cudaGetLastError());
    reducePartials<<<1, kThreads>>>(dpartial, blocks);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpyFromSymbol(&got, total, sizeof got));
    want = 0;
    for (int i = 0; i < n; ++i) want += (long long)hcoef[i % 8] * hx[i];
    if (got != want) {
      std::printf("reduction: round %d: total %lld, want %lld\n", round, got, want);
      ++wrong;
    }
  }
  unsigned count = 0;
  CUDA_CHECK(cudaMemcpy(&count, dcount, sizeof count, cudaMemcpyDeviceToHost));
  if (count != 2 * blocks) {
    std::printf("reduction: %u blocks counted, want %d\n", count, 2 * blocks);
    ++wrong;
  }
  int back[8];
  CUDA_CHECK(cudaMemcpyFromSymbol(back, coef, sizeof back));
  for (int k = 0; k < 8; ++k)
    if (back[k] != hcoef[k]) {
      std::printf("reduction: coef[%d] reads back %d, want %d\n", k, back[k], hcoef[k]);
      ++wrong;
    }
  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dpartial));
  if (wrong) {
    std::printf("reduction: FAILED (%d mismatches)\n", wrong);
    return 1;
  }
  std::printf("reduction: PASSED (n=%d, %d blocks, total=%lld, %u blocks counted)\n", n, blocks, got, count);
  return 0;
}
