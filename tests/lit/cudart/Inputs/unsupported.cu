// What a program meets where the stand-in stops (tests/lit/cudart/exec-unsupported.test): a
// runtime function it does not implement (cudaGraphCreate) returns cudaErrorNotSupported after
// one message naming it; a kernel with an instruction ptxrun cannot run faults, naming it;
// built with --default-stream per-thread, the program calls the _ptsz
// forms, which run as the plain ones; built with -rdc=true, its kernel cannot run.
#include <cstdio>

__global__ void iota(int* p) { p[threadIdx.x] = threadIdx.x; }

// tex.2dms, a fetch from a multisample texture (inline PTX: CUDA makes no multisample textures):
// an instruction ptxrun does not run (issue #34).
__global__ void fetch(cudaTextureObject_t t, float* out) {
  float r, g, b, a;
  asm volatile("tex.2dms.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}];"
               : "=f"(r), "=f"(g), "=f"(b), "=f"(a)
               : "l"(t), "r"(0), "r"(static_cast<int>(threadIdx.x)), "r"(0), "r"(0));
  out[threadIdx.x] = r + g + b + a;
}

int main() {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  iota<<<1, 32, 0, s>>>(d);
  std::printf("unsupported: launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  int h[32] = {};
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  std::printf("unsupported: h[31] = %d\n", h[31]);
  cudaGraph_t g;
  for (int i = 0; i < 2; ++i) std::printf("unsupported: cudaGraphCreate: %s\n", cudaGetErrorName(cudaGraphCreate(&g, 0)));
  std::printf("unsupported: last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  fetch<<<1, 32, 0, s>>>(0, reinterpret_cast<float*>(d));
  std::printf("unsupported: tex kernel: %s\n", cudaGetErrorName(cudaStreamSynchronize(s)));
  return 0;
}
