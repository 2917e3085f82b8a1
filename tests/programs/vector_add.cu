// vector_add: the classic. c[i] = a[i] + b[i] over n elements (not a multiple of the block size,
// so the bounds guard matters), checked element by element against the CPU.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PROGRAM_NAME "vector_add"
#include "check.h"

__global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 5000;
  const size_t bytes = n * sizeof(float);
  float* ha = static_cast<float*>(std::malloc(bytes));
  float* hb = static_cast<float*>(std::malloc(bytes));
  float* hc = static_cast<float*>(std::malloc(bytes));
  for (int i = 0; i < n; ++i) {
    ha[i] = float(i % 97) * 0.5f;
    hb[i] = float((i * 7) % 31) - 15.0f;
    hc[i] = -1.0f;
  }
  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, bytes));
  CUDA_CHECK(cudaMalloc(&db, bytes));
  CUDA_CHECK(cudaMalloc(&dc, bytes));
  CUDA_CHECK(cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb, bytes, cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  vectorAdd<<<blocks, threads>>>(da, db, dc, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(hc, dc, bytes, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      if (wrong < 5) std::printf("vector_add: c[%d] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
      ++wrong;
    }
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  std::free(ha);
  std::free(hb);
  std::free(hc);
  if (wrong) {
    std::printf("vector_add: FAILED (%d of %d wrong)\n", wrong, n);
    return 1;
  }
  std::printf("vector_add: PASSED (n=%d, %d blocks of %d)\n", n, blocks, threads);
  return 0;
}
