// streams_events: three streams, each taking a third of the data through pinned host memory:
// cudaMemcpyAsync in, two kernels on the stream, cudaMemcpyAsync out, with an event recorded
// before and after on each stream. The first stream then waits (cudaStreamWaitEvent) for the
// others' last events and runs a kernel over the whole array (it reads every stream's part).
// Then cudaStreamSynchronize and cudaStreamQuery (cudaSuccess: nothing pending),
// cudaEventSynchronize and cudaEventQuery on the last events, and cudaEventElapsedTime (>= 0)
// per stream and over all of them; the results against the CPU.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PROGRAM_NAME "streams_events"
#include "check.h"

constexpr int kStreams = 3;

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void clampTo(float* y, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
}

__global__ void reverse(const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[n - 1 - i];
}

int main() {
  const int chunk = 700, n = kStreams * chunk;
  float *hx, *hy, *hout, *hrev;
  CUDA_CHECK(cudaMallocHost(&hx, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&hy, n * sizeof(float)));
  CUDA_CHECK(cudaHostAlloc(&hout, n * sizeof(float), cudaHostAllocDefault));
  CUDA_CHECK(cudaMallocHost(&hrev, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    hx[i] = float(i % 64) - 32.0f;
    hy[i] = float(i % 9);
    hout[i] = 0.0f;
  }
  float *dx, *dy, *dz;
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dz, n * sizeof(float)));

  cudaStream_t streams[kStreams];
  cudaEvent_t begin[kStreams], end[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    if (s == 0)
      CUDA_CHECK(cudaStreamCreate(&streams[s]));
    else
      CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&begin[s]));
    CUDA_CHECK(cudaEventCreateWithFlags(&end[s], cudaEventDefault));
  }
  const float a[kStreams] = {2.0f, -1.0f, 0.5f};
  for (int s = 0; s < kStreams; ++s) {
    const int off = s * chunk;
    cudaStream_t st = streams[s];
    CUDA_CHECK(cudaEventRecord(begin[s], st));
    CUDA_CHECK(cudaMemcpyAsync(dx + off, hx + off, chunk * sizeof(float), cudaMemcpyHostToDevice, st));
    CUDA_CHECK(cudaMemcpyAsync(dy + off, hy + off, chunk * sizeof(float), cudaMemcpyHostToDevice, st));
    saxpy<<<(chunk + 127) / 128, 128, 0, st>>>(a[s], dx + off, dy + off, chunk);
    CUDA_CHECK(cudaGetLastError());
    clampTo<<<(chunk + 255) / 256, 256, 0, st>>>(dy + off, -20.0f, 20.0f, chunk);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(hout + off, dy + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaEventRecord(end[s], st));
  }
  // The whole array, on the first stream once the others are done with their parts.
  for (int s = 1; s < kStreams; ++s) CUDA_CHECK(cudaStreamWaitEvent(streams[0], end[s], 0));
  reverse<<<(n + 255) / 256, 256, 0, streams[0]>>>(dy, dz, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(hrev, dz, n * sizeof(float), cudaMemcpyDeviceToHost, streams[0]));
  for (int s = 0; s < kStreams; ++s) {
    CUDA_CHECK(cudaStreamSynchronize(streams[s]));
    CUDA_CHECK(cudaStreamQuery(streams[s]));  // cudaSuccess: all its work is done
  }
  CUDA_CHECK(cudaEventSynchronize(end[kStreams - 1]));
  CUDA_CHECK(cudaEventQuery(end[kStreams - 1]));

  int wrong = 0;
  for (int s = 0; s < kStreams; ++s) {
    float ms = -1.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, begin[s], end[s]));
    if (!(ms >= 0.0f)) {
      std::printf("streams_events: stream %d: elapsed time %f ms\n", s, ms);
      ++wrong;
    }
  }
  float all = -1.0f;
  CUDA_CHECK(cudaEventElapsedTime(&all, begin[0], end[kStreams - 1]));
  if (!(all >= 0.0f)) {
    std::printf("streams_events: elapsed time over all streams %f ms\n", all);
    ++wrong;
  }
  for (int i = 0; i < n; ++i) {
    float y = a[i / chunk] * hx[i] + hy[i];
    y = y < -20.0f ? -20.0f : (y > 20.0f ? 20.0f : y);
    if (hout[i] != y) {
      if (wrong < 5) std::printf("streams_events: out[%d] = %g, want %g\n", i, hout[i], y);
      ++wrong;
    }
  }
  for (int i = 0; i < n; ++i)
    if (hrev[i] != hout[n - 1 - i]) {
      if (wrong < 5) std::printf("streams_events: reversed[%d] = %g, want %g\n", i, hrev[i], hout[n - 1 - i]);
      ++wrong;
    }
  for (int s = 0; s < kStreams; ++s) {
    CUDA_CHECK(cudaEventDestroy(begin[s]));
    CUDA_CHECK(cudaEventDestroy(end[s]));
    CUDA_CHECK(cudaStreamDestroy(streams[s]));
  }
  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  CUDA_CHECK(cudaFree(dz));
  CUDA_CHECK(cudaFreeHost(hrev));
  CUDA_CHECK(cudaFreeHost(hx));
  CUDA_CHECK(cudaFreeHost(hy));
  CUDA_CHECK(cudaFreeHost(hout));
  if (wrong) {
    std::printf("streams_events: FAILED (%d mismatches)\n", wrong);
    return 1;
  }
  std::printf("streams_events: PASSED (n=%d on %d streams, 7 launches, events timed)\n", n, kStreams);
  return 0;
}
