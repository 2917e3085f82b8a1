// A CUDA program with tensor cores (issue #34): one warp computes D = 2 (A B + 1) through
// nvcuda::wmma -- fill_fragment, load_matrix_sync (A row-major, B column-major), mma_sync, an
// elementwise scale of the accumulator, store_matrix_sync -- and the host checks D against its
// own product. A and B are small integers, so every sum is exact.
#include <cstdio>
#include <mma.h>
using namespace nvcuda;

__global__ void gemm(const __half* a, const __half* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 1.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= 2.0f;
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

int main() {
  __half ha[256], hb[256];  // A(r, k) = ha[16r + k]; B(k, c) = hb[16c + k]
  float hd[256], want[256];
  for (int i = 0; i < 256; ++i) {
    ha[i] = __float2half(float(i % 7 - 3));
    hb[i] = __float2half(float(i % 5 - 2));
  }
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      float s = 1.0f;
      for (int k = 0; k < 16; ++k) s += __half2float(ha[r * 16 + k]) * __half2float(hb[c * 16 + k]);
      want[r * 16 + c] = 2.0f * s;
    }
  __half *a, *b;
  float* d;
  cudaMalloc(&a, sizeof ha);
  cudaMalloc(&b, sizeof hb);
  cudaMalloc(&d, sizeof hd);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  gemm<<<1, 32>>>(a, b, d);
  cudaError_t e = cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < 256; ++i) wrong += hd[i] != want[i];
  printf("wmma: %s, %d wrong of 256, d[0] = %g, d[255] = %g\n", cudaGetErrorName(e), wrong, hd[0], hd[255]);
  return wrong != 0 || e != cudaSuccess;
}
