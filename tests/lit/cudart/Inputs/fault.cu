// A kernel that writes far past its buffer (tests/lit/cudart/exec-api.test): the launch itself
// succeeds, the next synchronizing call returns cudaErrorIllegalAddress, and it sticks.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void oops(int* p) { p[threadIdx.x + (1 << 24)] = 1; }

int main() {
  int* p;
  cudaMalloc(&p, 64 * sizeof(int));
  oops<<<1, 32>>>(p);
  std::printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  std::printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int* q = nullptr;
  std::printf("malloc after: %s\n", cudaGetErrorName(cudaMalloc(&q, 16)));
  return 3;
}
