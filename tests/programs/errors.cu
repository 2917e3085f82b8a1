// errors: the error paths a CUDA program meets, each checked for the code CUDA returns and
// printed by name (tests/lit/programs/errors.test checks the names with FileCheck):
//  - a 2048-thread block: cudaErrorInvalidConfiguration from cudaGetLastError, once (not sticky);
//  - a host variable given as a symbol: cudaErrorInvalidSymbol; an offset past a symbol's end:
//    cudaErrorInvalidValue;
//  - cudaMemcpy from a device address in no allocation, and one running past an allocation's end:
//    cudaErrorInvalidValue, and the program goes on (a copy and a launch after them work);
//  - cudaSetDevice(1) on a one-device system, cudaFree of a pointer inside an allocation;
//  - a kernel that writes far out of bounds: the next cudaDeviceSynchronize returns
//    cudaErrorIllegalAddress, and so does every call after it (sticky), cudaGetLastError included.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

static int failures = 0;

// Prints what `call` returned and counts it as a failure unless it is `want`.
#define EXPECT(want, call)                                                                               \
  do {                                                                                                   \
    cudaError_t got_ = (call);                                                                           \
    std::printf("%-28s %s\n", #call ":", cudaGetErrorName(got_));                                        \
    if (got_ != (want)) {                                                                                \
      std::printf("errors: line %d: %s returned %s, want %s\n", __LINE__, #call, cudaGetErrorName(got_), \
                  cudaGetErrorName(want));                                                               \
      ++failures;                                                                                        \
    }                                                                                                    \
  } while (0)

__device__ int onDevice[4];
static int hostOnly[4];

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

__global__ void outOfBounds(int* p) {
  p[threadIdx.x + (1 << 24)] = 1;
}

int main() {
  const int n = 256;
  int* d = nullptr;
  EXPECT(cudaSuccess, cudaMalloc(&d, n * sizeof(int)));

  std::printf("-- invalid configuration\n");
  fill<<<1, 2048>>>(d, 0, n);
  EXPECT(cudaErrorInvalidConfiguration, cudaGetLastError());
  EXPECT(cudaSuccess, cudaGetLastError());

  std::printf("-- invalid symbol\n");
  int buf[4] = {1, 2, 3, 4};
  void* addr = nullptr;
  EXPECT(cudaErrorInvalidSymbol, cudaMemcpyToSymbol(hostOnly, buf, sizeof buf));
  EXPECT(cudaErrorInvalidSymbol, cudaGetSymbolAddress(&addr, hostOnly));
  EXPECT(cudaErrorInvalidValue, cudaMemcpyFromSymbol(buf, onDevice, sizeof buf, 2 * sizeof(int)));
  EXPECT(cudaSuccess, cudaMemcpyToSymbol(onDevice, buf, sizeof buf));

  std::printf("-- bad copies\n");
  static int host[n];
  EXPECT(cudaErrorInvalidValue, cudaMemcpy(host, d + (1 << 24), sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(cudaErrorInvalidValue, cudaMemcpy(d + n / 2, host, n * sizeof(int), cudaMemcpyHostToDevice));
  EXPECT(cudaErrorInvalidValue, cudaGetLastError());
  EXPECT(cudaSuccess, cudaGetLastError());
  EXPECT(cudaErrorInvalidDevice, cudaSetDevice(1));
  EXPECT(cudaErrorInvalidValue, cudaFree(d + 1));
  EXPECT(cudaErrorInvalidValue, cudaGetLastError());
  // Nothing of that is sticky: a launch and copies still work.
  fill<<<2, 128>>>(d, 100, n);
  EXPECT(cudaSuccess, cudaGetLastError());
  EXPECT(cudaSuccess, cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i] != 100 + i;
  if (wrong) {
    std::printf("errors: %d elements wrong after the bad copies\n", wrong);
    ++failures;
  }

  std::printf("-- kernel fault\n");
  // (No cudaGetLastError right after the launch: on a GPU it may or may not have seen the fault.)
  outOfBounds<<<1, 32>>>(d);
  EXPECT(cudaErrorIllegalAddress, cudaDeviceSynchronize());
  EXPECT(cudaErrorIllegalAddress, cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  int* more = nullptr;
  EXPECT(cudaErrorIllegalAddress, cudaMalloc(&more, 16));
  fill<<<1, 32>>>(d, 0, n);
  EXPECT(cudaErrorIllegalAddress, cudaGetLastError());
  EXPECT(cudaErrorIllegalAddress, cudaGetLastError());
  EXPECT(cudaErrorIllegalAddress, cudaDeviceSynchronize());

  if (failures) {
    std::printf("errors: FAILED (%d unexpected result(s))\n", failures);
    return 1;
  }
  std::printf("errors: PASSED (every call returned the expected code)\n");
  return 0;
}
