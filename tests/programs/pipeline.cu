// pipeline: five kernels in a row, each reading what the previous one left on the device (no
// copies back in between), with different grids: scale (y = a*x + b), an inclusive scan of each
// block in shared memory, a one-block scan of the block totals, adding each block's offset (a
// whole-array prefix sum), and a histogram of the result with shared and global atomics. Every
// stage's output is copied back at the end and checked against the CPU.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PROGRAM_NAME "pipeline"
#include "check.h"

constexpr int kBlock = 256;  // threads per block of the scan
constexpr int kBins = 16;

__global__ void scale(const int* x, int* y, int a, int b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + b;
}

// Inclusive scan of each block's kBlock elements (Hillis-Steele, double-buffered); the block's
// total goes to sums[blockIdx.x].
__global__ void scanBlocks(const int* in, int* out, int* sums, int n) {
  __shared__ int buf[2][kBlock];
  int t = threadIdx.x, i = blockIdx.x * kBlock + t;
  int cur = 0;
  buf[cur][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < kBlock; d *= 2) {
    int v = buf[cur][t];
    if (t >= d) v += buf[cur][t - d];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][t];
  if (t == kBlock - 1) sums[blockIdx.x] = buf[cur][t];
}

// Exclusive scan of the m block totals by one block (m <= blockDim.x), sequential per warp.
__global__ void scanSums(int* sums, int m) {
  __shared__ int s[1024];
  int t = threadIdx.x;
  s[t] = t < m ? sums[t] : 0;
  __syncthreads();
  if (t == 0) {
    int run = 0;
    for (int k = 0; k < m; ++k) {
      int v = s[k];
      s[k] = run;
      run += v;
    }
  }
  __syncthreads();
  if (t < m) sums[t] = s[t];
}

__global__ void addOffsets(int* data, const int* offsets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += offsets[i / kBlock];
}

__global__ void histogram(const int* data, unsigned* bins, int n) {
  __shared__ unsigned local[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = static_cast<unsigned>(data[i]);
    atomicAdd(&local[(v >> 3) % kBins], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kBins) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
  const int n = 3000, a = 3, b = -7;
  const int blocks = (n + kBlock - 1) / kBlock;
  static int hx[n], hy[n], hscan[n];
  static unsigned hbins[kBins];
  unsigned seed = 12345;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    hx[i] = int((seed >> 16) % 100);
  }
  int *dx, *dy, *dscan, *dsums;
  unsigned* dbins;
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dy, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dscan, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dsums, blocks * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dbins, kBins * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dbins, 0, kBins * sizeof(unsigned)));

  scale<<<4, 128>>>(dx, dy, a, b, n);  // grid-stride: fewer threads than elements
  CUDA_CHECK(cudaGetLastError());
  scanBlocks<<<blocks, kBlock>>>(dy, dscan, dsums, n);
  CUDA_CHECK(cudaGetLastError());
  scanSums<<<1, 32>>>(dsums, blocks);
  CUDA_CHECK(cudaGetLastError());
  addOffsets<<<(n + 127) / 128, 128>>>(dscan, dsums, n);
  CUDA_CHECK(cudaGetLastError());
  histogram<<<6, 64>>>(dscan, dbins, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hscan, dscan, sizeof hscan, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hbins, dbins, sizeof hbins, cudaMemcpyDeviceToHost));

  int wrong = 0, run = 0;
  unsigned want[kBins] = {};
  for (int i = 0; i < n; ++i) {
    int y = a * hx[i] + b;
    run += y;
    ++want[(unsigned(run) >> 3) % kBins];
    if (hy[i] != y || hscan[i] != run) {
      if (wrong < 5)
        std::printf("pipeline: element %d: y %d (want %d), prefix sum %d (want %d)\n", i, hy[i], y, hscan[i], run);
      ++wrong;
    }
  }
  unsigned total = 0;
  for (int k = 0; k < kBins; ++k) {
    total += hbins[k];
    if (hbins[k] != want[k]) {
      std::printf("pipeline: bin %d: %u, want %u\n", k, hbins[k], want[k]);
      ++wrong;
    }
  }
  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  CUDA_CHECK(cudaFree(dscan));
  CUDA_CHECK(cudaFree(dsums));
  CUDA_CHECK(cudaFree(dbins));
  if (wrong) {
    std::printf("pipeline: FAILED (%d mismatches)\n", wrong);
    return 1;
  }
  std::printf("pipeline: PASSED (n=%d, 5 launches, sum=%d, %u in %d bins)\n", n, run, total, kBins);
  return 0;
}
