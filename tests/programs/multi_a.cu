// multi (with multi_b.cu): two .cu files linked into one program, so two fat binaries, each
// registered on its own. Both files have a `static __device__ int counter` (the same name,
// one variable per file) and a `static __global__ void tally` kernel; this file also has a
// __constant__ `offsetA`, multi_b.cu a __device__ `factorB` (different names). Kernels of both
// files work on the same device buffer; each file's counter is read back by its own
// cudaMemcpyFromSymbol and must count only its own file's launches. main() is here.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#include "multi.h"

static __device__ int counter;
__constant__ int offsetA;

static __global__ void tally(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += offsetA;
  if (i == 0) atomicAdd(&counter, 1);
}

__global__ void squareA(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * data[i];
  if (i == 0) atomicAdd(&counter, 1);
}

int main() {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  static int h[n], back[n];
  for (int i = 0; i < n; ++i) h[i] = i % 50 - 25;
  int* d;
  CUDA_CHECK(cudaMalloc(&d, sizeof h));
  CUDA_CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  const int zero = 0, offset = 3;
  CUDA_CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
  CUDA_CHECK(cudaMemcpyToSymbol(offsetA, &offset, sizeof offset));
  resetB();

  tally<<<blocks, threads>>>(d, n);  // + offsetA
  CUDA_CHECK(cudaGetLastError());
  runB(d, n, 5);  // * factorB, twice, by multi_b.cu's kernels (its tally included)
  squareA<<<blocks, threads>>>(d, n);
  CUDA_CHECK(cudaGetLastError());
  tally<<<blocks, threads>>>(d, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));

  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    int v = (h[i] + offset) * 5 * 5;
    v = v * v + offset;
    if (back[i] != v) {
      if (wrong < 5) std::printf("multi: element %d = %d, want %d\n", i, back[i], v);
      ++wrong;
    }
  }
  int countA = -1;
  CUDA_CHECK(cudaMemcpyFromSymbol(&countA, counter, sizeof countA));
  const int countB = counterB();
  if (countA != 3 || countB != 2) {
    std::printf("multi: counters %d (multi_a.cu) and %d (multi_b.cu), want 3 and 2\n", countA, countB);
    ++wrong;
  }
  CUDA_CHECK(cudaFree(d));
  if (wrong) {
    std::printf("multi: FAILED (%d mismatches)\n", wrong);
    return 1;
  }
  std::printf("multi: PASSED (n=%d, 5 launches from 2 files, counters %d and %d)\n", n, countA, countB);
  return 0;
}
