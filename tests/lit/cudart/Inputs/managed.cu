// Managed and page-locked host memory on ptxrun exec (tests/lit/cudart/exec-managed.test): the
// host writes and reads cudaMallocManaged memory and __managed__ variables directly, a kernel reads page-locked host memory
// in place (zero-copy, as under unified addressing), pointer attributes tell the kinds apart.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("managed: %s failed: %s\n", #call, cudaGetErrorName(e_));              \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// __managed__ variables: the host uses them by name, kernels by name and through a pointer.
__managed__ int launches_seen;
__managed__ float scale[4] = {1, 2, 3, 4};

__global__ void bump(float* s) {
  if (threadIdx.x == 0) atomicAdd(&launches_seen, 1);
  s[threadIdx.x] *= 10.0f;
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void count_odd(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (in[i] & 1)) atomicAdd(out, 1);
}

int main() {
  const int n = 1000;
  float *x, *y;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&y, n * sizeof(float), cudaMemAttachGlobal));
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
  CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, 0));
  saxpy<<<(n + 127) / 128, 128>>>(2.0f, x, y, n);
  CHECK(cudaDeviceSynchronize());
  saxpy<<<(n + 127) / 128, 128>>>(1.0f, x, y, n);  // the host's view after each launch
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != 3.0f * float(i) + 1.0f;

  int *pinned, *mapped, *count, *devView;
  CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
  CHECK(cudaHostAlloc(&mapped, sizeof(int), cudaHostAllocMapped));
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMemset(count, 0, sizeof(int)));
  for (int i = 0; i < n; ++i) pinned[i] = i * 7;
  CHECK(cudaHostGetDevicePointer(&devView, mapped, 0));
  *mapped = 0;
  count_odd<<<(n + 255) / 256, 256>>>(pinned, count, n);   // reads host memory in place
  count_odd<<<(n + 255) / 256, 256>>>(pinned, devView, n);  // writes it too
  CHECK(cudaDeviceSynchronize());
  int odd = 0;
  CHECK(cudaMemcpy(&odd, count, sizeof odd, cudaMemcpyDeviceToHost));
  bad += odd != n / 2;
  bad += *mapped != n / 2;

  launches_seen = 100;  // the host writes it in place
  bump<<<1, 4>>>(scale);  // &scale[0] as the host sees it is the device's address
  bump<<<1, 4>>>(scale);
  CHECK(cudaDeviceSynchronize());
  bad += launches_seen != 102;
  for (int i = 0; i < 4; ++i) bad += scale[i] != float(i + 1) * 100.0f;

  cudaPointerAttributes a;
  const char* kinds[] = {"unregistered", "host", "device", "managed"};
  float* dev;
  CHECK(cudaMalloc(&dev, 16));
  int local = 0;
  for (const void* p : {(const void*)y, (const void*)(pinned + 5), (const void*)dev, (const void*)&local}) {
    CHECK(cudaPointerGetAttributes(&a, p));
    std::printf("managed: pointer kind %s\n", kinds[a.type]);
  }
  int* plain = (int*)std::malloc(64);
  std::printf("managed: device pointer of malloc'd memory: %s\n", cudaGetErrorName(cudaHostGetDevicePointer((void**)&devView, plain, 0)));
  cudaGetLastError();
  std::printf("managed: cudaFree of page-locked memory: %s\n", cudaGetErrorName(cudaFree(pinned)));
  cudaGetLastError();
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(mapped));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(dev));
  CHECK(cudaFree(count));
  // cudaDeviceReset frees what is left.
  int* left;
  CHECK(cudaMalloc(&left, 1 << 20));
  size_t freeBefore, freeAfter, total;
  CHECK(cudaMemGetInfo(&freeBefore, &total));
  CHECK(cudaDeviceReset());
  CHECK(cudaMemGetInfo(&freeAfter, &total));
  std::printf("managed: cudaDeviceReset freed %zu bytes; cudaFree afterwards: %s\n", freeAfter - freeBefore,
              cudaGetErrorName(cudaFree(left)));
  bad += freeAfter - freeBefore != (1 << 20);
  std::printf("managed: %s (%d wrong)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
