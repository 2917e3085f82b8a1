// Two kernels and a __device__ variable, for the extract-ptx tests (tests/lit/cudart).
#include <cstdio>

__device__ float scale = 2.0f;

// A comment, which the PTX that nvcc embeds leaves out.
__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] * scale + y[i]; /* block comment */
}

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

int main() {
  float *x, *y;
  cudaMalloc(&x, 64);
  cudaMalloc(&y, 64);
  axpy<<<1, 16>>>(1.0f, x, y, 16);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
