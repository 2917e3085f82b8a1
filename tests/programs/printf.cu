// printf: device printf with %d, %u, %x, %X, %lld, %f (with width and precision), %e, %c, %s
// (string literals and a char array in global memory) and %%. The order is deterministic on a GPU
// too: in `lanes` the lanes of one warp take turns (one lane per step, __syncwarp between the
// steps); `blocks` prints one line per block (any order: the test checks them unordered). The
// host checks that the kernels ran (a per-line count the device kept); tests/lit/programs/
// printf.test checks the text with FileCheck.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PROGRAM_NAME "printf"
#include "check.h"

__device__ char word[8] = "ptxrun";
__device__ int printed;

__global__ void lanes(int base, float scale, long long big) {
  const int lane = threadIdx.x;
  for (int step = 0; step < 4; ++step) {
    if (lane == step * 3) {
      printf("lane %d: int=%d uint=%u hex=%x HEX=%X ll=%lld f=%8.3f e=%.2e c=%c s=%s %s 100%%\n", lane, base - lane * 7,
             unsigned(base) * 3u + lane, 0xbeef0 + lane, 0xCAFE0u + lane, big * (lane + 1), scale * lane,
             scale * 1e6f * (lane + 1), 'a' + lane, word, lane % 2 ? "odd" : "even");
      atomicAdd(&printed, 1);
    }
    __syncwarp();
  }
}

__global__ void blocks(double x) {
  if (threadIdx.x == 0) {
    printf("block %d of %d: x*block=%.4f negative=%d\n", blockIdx.x, gridDim.x, x * blockIdx.x, -int(blockIdx.x) - 1);
    atomicAdd(&printed, 1);
  }
}

int main() {
  const int zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(printed, &zero, sizeof zero));
  lanes<<<1, 32>>>(-1000, 0.125f, 1LL << 40);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  blocks<<<3, 64>>>(2.5);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  int count = -1;
  CUDA_CHECK(cudaMemcpyFromSymbol(&count, printed, sizeof count));
  if (count != 4 + 3) {
    std::printf("printf: FAILED (%d lines printed, want 7)\n", count);
    return 1;
  }
  std::printf("printf: PASSED (%d lines from 2 launches)\n", count);
  return 0;
}
