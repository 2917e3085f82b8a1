// Launches for ptxrun exec --metrics, --check-races and the profile's module hash
// (tests/lit/cudart/exec-metrics.test): `fill` three times, `total` once; with the argument
// "race", `total` also has every thread store its own index to one shared word (a race).
#include <cstdio>
#include <cstring>

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + (i & 3);
}

__global__ void total(const int* p, int* out, int n, int race) {
  __shared__ int part[64];
  __shared__ int shared_word;
  int t = threadIdx.x;
  part[t] = t < n ? p[t] : 0;
  if (race) shared_word = t;
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = part[0];
  if (race && t == 0) out[1] = shared_word;  // whichever store landed last
}

int main(int argc, char** argv) {
  int race = argc > 1 && std::strcmp(argv[1], "race") == 0;
  int *p, *out, h = 0;
  cudaMalloc(&p, 64 * sizeof(int));
  cudaMalloc(&out, 2 * sizeof(int));
  for (int v = 1; v <= 3; ++v) fill<<<2, 32>>>(p, v, 64);
  total<<<1, 64>>>(p, out, 64, race);
  cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
  int want = 0;
  for (int i = 0; i < 64; ++i) want += 3 + (i & 3);
  std::printf("metrics: total %d, %s\n", h, h == want ? "right" : "WRONG");
  return h != want;
}
