// multi (with multi_a.cu, which has main() and says what is checked): the second file and fat
// binary, with its own `static __device__ int counter` and `static __global__ void tally` of the
// same names as multi_a.cu's, and a __device__ `factorB`.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#include "multi.h"

static __device__ int counter;
__device__ int factorB;

static __global__ void tally(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factorB;
  if (i == 0) atomicAdd(&counter, 1);
}

void resetB() {
  const int zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
}

// Multiplies data by `factor` twice: two launches with different grids.
void runB(int* data, int n, int factor) {
  CUDA_CHECK(cudaMemcpyToSymbol(factorB, &factor, sizeof factor));
  tally<<<(n + 255) / 256, 256>>>(data, n);
  CUDA_CHECK(cudaGetLastError());
  tally<<<(n + 63) / 64, 64>>>(data, n);
  CUDA_CHECK(cudaGetLastError());
}

int counterB() {
  int c = -1;
  CUDA_CHECK(cudaMemcpyFromSymbol(&c, counter, sizeof c));
  return c;
}
