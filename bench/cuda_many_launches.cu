// 10,000 launches of a one-warp kernel, for the cost of one launch under `ptxrun exec`
// (docs/CUDART.md): nvcc -cudart shared -o /tmp/many bench/cuda_many_launches.cu &&
// time build/ptxrun exec -j 1 -- /tmp/many
#include <cstdio>
#include <cuda_runtime.h>
__global__ void inc(int* x) { x[threadIdx.x] += 1; }
int main() {
  int* d; cudaMalloc(&d, 32 * sizeof(int)); cudaMemset(d, 0, 32 * sizeof(int));
  for (int k = 0; k < 10000; ++k) inc<<<1, 32>>>(d);
  int h[32]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h[5]);
  return h[5] != 10000;
}
