// A CUDA program that checks the runtime API it uses (tests/lit/cudart/exec-api.test): run by
// `ptxrun exec`, it must print "api: all checks passed".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int failures = 0;
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::printf("check failed at line %d: %s\n", __LINE__, #cond);       \
      ++failures;                                                           \
    }                                                                       \
  } while (0)
#define OK(call) CHECK((call) == cudaSuccess)

struct Affine {
  float scale;
  int offset;
  double extra;
  short tag;
};

__device__ int launches;
__device__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__constant__ int bias[2];

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  if (i == 0) atomicAdd(&launches, 1);
}

__global__ void affine(int* out, Affine f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = int(f.scale * i) + f.offset + int(f.extra) + f.tag + bias[i & 1];
}

__global__ void blockSum(const int* in, int* out) {
  extern __shared__ int part[];
  int t = threadIdx.x;
  part[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
}

__global__ void accumulate(int* x) { x[threadIdx.x] += threadIdx.x; }

__global__ void readTable(float* out) { out[threadIdx.x] = table[threadIdx.x] * 10.0f; }

__global__ void hello(int v) {
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("hello from the device: %d\n", v);
}

int main() {
  cudaDeviceProp p;
  OK(cudaGetDeviceProperties(&p, 0));
  CHECK(p.major == 9 && p.minor == 0 && p.multiProcessorCount > 0 && p.warpSize == 32);
  std::printf("device: %s, %d SMs\n", p.name, p.multiProcessorCount);
  int count = 0, sms = 0;
  OK(cudaGetDeviceCount(&count));
  CHECK(count == 1);
  OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(sms == p.multiProcessorCount);

  // Copies and a launch.
  const int n = 1000;
  static float ha[n], hb[n], hc[n];
  for (int i = 0; i < n; ++i) { ha[i] = float(i); hb[i] = 2.0f * i; }
  float *a, *b, *c;
  OK(cudaMalloc(&a, n * sizeof(float)));
  OK(cudaMalloc(&b, n * sizeof(float)));
  OK(cudaMalloc(&c, n * sizeof(float)));
  OK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
  OK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyDefault));
  vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize());
  OK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += hc[i] != 3.0f * i;
  CHECK(bad == 0);

  // Device to device, memset.
  OK(cudaMemcpy(c, a, sizeof ha, cudaMemcpyDeviceToDevice));
  OK(cudaMemset(b, 0, sizeof hb));
  vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  OK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDefault));
  bad = 0;
  for (int i = 0; i < n; ++i) bad += hc[i] != float(i);
  CHECK(bad == 0);

  // Variables: a __device__ counter kept across launches, a __constant__ array, an initialized table.
  int got = 0;
  OK(cudaMemcpyFromSymbol(&got, launches, sizeof got));
  CHECK(got == 2);
  int hbias[2] = {100, 200};
  OK(cudaMemcpyToSymbol(bias, hbias, sizeof hbias));
  int* out;
  OK(cudaMalloc(&out, 64 * sizeof(int)));
  Affine f{2.0f, 5, 7.0, 3};
  affine<<<1, 64>>>(out, f, 64);
  int hout[64];
  OK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < 64; ++i) bad += hout[i] != 2 * i + 5 + 7 + 3 + hbias[i & 1];
  CHECK(bad == 0);
  float* tab;
  OK(cudaGetSymbolAddress(reinterpret_cast<void**>(&tab), table));
  size_t tabSize = 0;
  OK(cudaGetSymbolSize(&tabSize, table));
  CHECK(tabSize == 4 * sizeof(float));
  float* tout;
  OK(cudaMalloc(&tout, 4 * sizeof(float)));
  readTable<<<1, 4>>>(tout);
  float ht[4];
  OK(cudaMemcpy(ht, tout, sizeof ht, cudaMemcpyDeviceToHost));
  CHECK(ht[0] == 10.0f && ht[3] == 40.0f);
  OK(cudaMemcpy(ht, tab, sizeof ht, cudaMemcpyDeviceToHost));
  CHECK(ht[1] == 2.0f);

  // Dynamic shared memory.
  int *in, *sums;
  static int hin[4 * 128];
  for (int i = 0; i < 4 * 128; ++i) hin[i] = i % 7;
  OK(cudaMalloc(&in, sizeof hin));
  OK(cudaMalloc(&sums, 4 * sizeof(int)));
  OK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  blockSum<<<4, 128, 128 * sizeof(int)>>>(in, sums);
  int hs[4];
  OK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
  for (int blk = 0; blk < 4; ++blk) {
    int want = 0;
    for (int i = 0; i < 128; ++i) want += hin[blk * 128 + i];
    CHECK(hs[blk] == want);
  }

  // What the runtime tells of a kernel.
  cudaFuncAttributes fa;
  OK(cudaFuncGetAttributes(&fa, blockSum));
  CHECK(fa.maxThreadsPerBlock == 1024 && fa.sharedSizeBytes == 0 && fa.numRegs > 0 && fa.maxDynamicSharedSizeBytes == 48 << 10);

  // More than 48 KiB of dynamic shared memory needs the kernel's attribute raised first.
  blockSum<<<1, 128, 64 << 10>>>(in, sums);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  OK(cudaFuncSetAttribute(blockSum, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
  blockSum<<<1, 128, 64 << 10>>>(in, sums);
  OK(cudaGetLastError());
  OK(cudaFuncGetAttributes(&fa, blockSum));
  CHECK(fa.maxDynamicSharedSizeBytes == 64 << 10);
  CHECK(cudaFuncSetAttribute(blockSum, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 << 10) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  // Many launches on streams, timed with events.
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1;
  OK(cudaEventCreate(&e0));
  OK(cudaEventCreate(&e1));
  int* acc;
  OK(cudaMalloc(&acc, 32 * sizeof(int)));
  OK(cudaMemsetAsync(acc, 0, 32 * sizeof(int), s));
  OK(cudaEventRecord(e0, s));
  for (int k = 0; k < 200; ++k) accumulate<<<1, 32, 0, s>>>(acc);
  OK(cudaEventRecord(e1, s));
  OK(cudaStreamSynchronize(s));
  float ms = -1;
  OK(cudaEventElapsedTime(&ms, e0, e1));
  CHECK(ms >= 0);
  int hacc[32];
  OK(cudaMemcpyAsync(hacc, acc, sizeof hacc, cudaMemcpyDeviceToHost, s));
  OK(cudaStreamSynchronize(s));
  CHECK(hacc[31] == 200 * 31);
  OK(cudaStreamDestroy(s));

  // Pitched memory.
  float* pitched;
  size_t pitch = 0;
  OK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, 10 * sizeof(float), 3));
  CHECK(pitch >= 10 * sizeof(float));
  float rows[3][10], back[3][10];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 10; ++k) rows[r][k] = float(r * 10 + k);
  OK(cudaMemcpy2D(pitched, pitch, rows, sizeof rows[0], sizeof rows[0], 3, cudaMemcpyHostToDevice));
  OK(cudaMemcpy2D(back, sizeof back[0], pitched, pitch, sizeof back[0], 3, cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(rows, back, sizeof rows) == 0);

  // Errors: a bad configuration is reported once, and is not sticky.
  vadd<<<1, 2048>>>(a, b, c, n);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  OK(cudaGetLastError());
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
  CHECK(cudaFree(reinterpret_cast<void*>(a + 1)) == cudaErrorInvalidValue);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  OK(cudaGetLastError());

  hello<<<2, 32>>>(42);
  OK(cudaDeviceSynchronize());
  OK(cudaFree(a));
  OK(cudaFree(b));
  OK(cudaFree(c));
  size_t freeMem = 0, total = 0;
  OK(cudaMemGetInfo(&freeMem, &total));
  CHECK(freeMem <= total && total > 0);
  if (failures) {
    std::printf("api: %d check(s) failed\n", failures);
    return 1;
  }
  std::printf("api: all checks passed\n");
  return 0;
}
