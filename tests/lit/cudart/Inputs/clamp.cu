// One launch for ptxrun exec --compare (tests/lit/cudart/exec-compare.test): every thread clamps
// its element. With plant-bug (a wrong rewrite of each function's first conditional branch) the
// optimized module skips the work, and --compare stops at the first byte that differs.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void clamp(int* v, int n, int hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] > hi) v[i] = hi;
}

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  clamp<<<n / 64, 64>>>(d, n, 100);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += h[i] != (i > 100 ? 100 : i);
  std::printf("clamp: %d wrong\n", bad);
  return bad != 0;
}
