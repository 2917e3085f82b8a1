// A small program for ptxopt-bench --program (tests/lit/cudart/bench-program.test, the
// docs/BENCHMARKS.md figures). `classify` has a data-dependent divergent branch (one value in
// three takes one side: every warp splits) between two sides of ten integer instructions, which
// `select` converts to selp when the profile shows the splits and keeps without one (as
// tests/lit/quality/Inputs/variants/k.ptx); `iterate` has one (one value in five runs a loop);
// `spread` has no branch. Each kernel's first conditional branch is its if, so that `plant-bug`
// changes the answer without a fault. It prints a checksum and writes every value to out/values.txt in its
// working directory; with the argument "fail" it exits 3 first.
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

__global__ void classify(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int r;
  if (v % 3 == 0) {
    int a = v * 7 + 3;
    a ^= a >> 3;
    a = a * 5 + i;
    a <<= 2;
    a -= i;
    a ^= 4660;
    a >>= 1;
    a += i;
    r = a * 9;
  } else {
    int b = v * 11 - 1;
    b ^= b >> 5;
    b = b * 3 + i;
    b <<= 3;
    b += i;
    b ^= 17185;
    b -= b >> 2;
    r = b * 13;
  }
  out[i] = r;
}

__global__ void iterate(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int r = out[i];
  if (v % 5 == 0) {
    for (int k = 0; k < (v & 7) + 4; ++k) r = r * 31 + k;
  } else {
    r = r * 7 + 3;
  }
  out[i] = r;
}

__global__ void spread(int* out, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = out[i] * k + (i & 3);
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "fail") == 0) {
    std::fprintf(stderr, "bench_program: failing as asked\n");
    return 3;
  }
  const int n = 1024;
  static int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 101;
  int *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  classify<<<n / 128, 128>>>(in, out);
  iterate<<<n / 128, 128>>>(in, out);
  for (int k = 2; k <= 4; ++k) spread<<<n / 256, 256>>>(out, k);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  unsigned sum = 0;
  for (int i = 0; i < n; ++i) sum = sum * 33 + unsigned(h[i]);
  std::printf("bench_program: checksum %u\n", sum);
  mkdir("out", 0755);
  FILE* f = std::fopen("out/values.txt", "w");
  if (!f) return 1;
  for (int i = 0; i < n; ++i) std::fprintf(f, "%d\n", h[i]);
  std::fclose(f);
  return 0;
}
