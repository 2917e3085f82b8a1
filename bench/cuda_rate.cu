// A multi-launch CUDA program for the emulation rate of `ptxrun exec` against `ptxrun --launch`
// on the same kernels (issue #33's speed criterion; docs/BENCHMARKS.md). bench/exec_rate.py
// builds it, takes its PTX out with `ptxrun extract-ptx` and runs both sides.
//
//   nvcc -cudart shared -arch=sm_90 -o /tmp/rate bench/cuda_rate.cu
//   ptxrun exec -j 1 -- /tmp/rate rate [ROUNDS]   # ROUNDS x (2 stencil, 2 reduce, 1 branchy) launches
//   ptxrun exec -j 1 -- /tmp/rate small [N]       # N launches of a one-warp kernel
//
// `rate` times every launch on the host (launches complete when they are issued under ptxrun;
// each is followed by cudaDeviceSynchronize so the figure also means something on a GPU) and
// prints one JSON line: per kernel the launches and the seconds spent in them, on the wall clock
// and in CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID: every thread's, so under
// `-j 2` both of ptxrun's; on a loaded machine it still counts only the work done). The shapes match
// bench/rate/*.json, the launch specs of the same kernels for `ptxrun --launch`:
//   stencil   grid (64,64), block (16,16): a 5-point Jacobi step on a 1024 x 1024 f32 grid,
//             two per round (ping-pong), so each round's stencil reads the previous one's output;
//   reduce    grid 256, block 256, 256 f32 of shared memory: a grid-stride sum of squares of the
//             stencil's grid with a shared-memory tree and __syncthreads, then the same kernel
//             with grid 1 over the 256 partial sums (reduce_final.json);
//   branchy   grid 1024, block 256: per element of a u32 array (0, 1, 2, ...), a hash picks one
//             of four divergent paths, two with data-dependent loops.
// The instructions each kernel executes do not depend on the values of the f32 data, and
// branchy reads an input the program never changes, so every launch of a kernel executes the
// same warp instructions as its spec does (exec_rate.py checks that with branch profiles).
// The results are checked against a CPU reference at the end (exit 1 on a mismatch).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <ctime>
#include <cuda_runtime.h>

constexpr int kN = 1024;               // stencil grid side
constexpr int kReduceBlocks = 256;     // first reduction's grid
constexpr int kThreads = 256;          // reduction block
constexpr int kBranchyN = 1024 * 256;  // branchy elements

extern "C" __global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  int i = y * n + x;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}

// out[blockIdx.x] = sum of in[i]^2 (square = 1) or in[i] (square = 0) over the block's grid-stride share.
extern "C" __global__ void reduce(const float* __restrict__ in, float* __restrict__ out, int n, int square) {
  __shared__ float s[kThreads];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = in[i];
    acc += square ? v * v : v;
  }
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__host__ __device__ inline unsigned mix(unsigned h) {
  h ^= h >> 16; h *= 0x7feb352dU;
  h ^= h >> 15; h *= 0x846ca68bU;
  return h ^ (h >> 16);
}

__host__ __device__ inline float branchyElement(unsigned v) {
  unsigned h = mix(v);
  float r;
  switch (h & 3) {
    case 0: {  // a data-dependent trip count
      r = 0.0f;
      for (unsigned k = 0; k < ((h >> 4) & 15); ++k) r = r * 0.5f + float((h >> k) & 7);
      break;
    }
    case 1: r = float(h >> 20) * 0.25f; break;
    case 2: {  // a Collatz-like walk, at most 24 steps
      unsigned x = (h >> 8) | 1;
      int steps = 0;
      while (x != 1 && steps < 24) { x = (x & 1) ? 3 * x + 1 : x >> 1; ++steps; }
      r = float(steps);
      break;
    }
    default: r = (h & 0x100) ? -1.0f : float(h & 0xff); break;
  }
  return r;
}

extern "C" __global__ void branchy(const unsigned* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = branchyElement(in[i]);
}

extern "C" __global__ void tiny(int* x) { x[threadIdx.x] += 1; }

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

using Clock = std::chrono::steady_clock;

static double cpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timed {
  const char* name;
  int launches = 0;
  double seconds = 0, cpu = 0;
};

// Runs one launch (the lambda), waits for it and adds its host time (wall and CPU) to t.
template <class F> static void timed(Timed& t, F launch) {
  double c = cpuSeconds();
  auto s = Clock::now();
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  t.seconds += std::chrono::duration<double>(Clock::now() - s).count();
  t.cpu += cpuSeconds() - c;
  ++t.launches;
}

static int rate(int rounds) {
  const size_t cells = size_t(kN) * kN;
  std::vector<float> grid(cells);
  for (size_t i = 0; i < cells; ++i) grid[i] = float(i % 1000) * 0.001f;  // any values do
  std::vector<unsigned> keys(kBranchyN);
  for (int i = 0; i < kBranchyN; ++i) keys[i] = unsigned(i);
  float *a, *b, *partial, *sum, *bout;
  unsigned* bin;
  CHECK(cudaMalloc(&a, cells * sizeof(float)));
  CHECK(cudaMalloc(&b, cells * sizeof(float)));
  CHECK(cudaMalloc(&partial, kReduceBlocks * sizeof(float)));
  CHECK(cudaMalloc(&sum, sizeof(float)));
  CHECK(cudaMalloc(&bin, kBranchyN * sizeof(unsigned)));
  CHECK(cudaMalloc(&bout, kBranchyN * sizeof(float)));
  CHECK(cudaMemcpy(a, grid.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, grid.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(bin, keys.data(), kBranchyN * sizeof(unsigned), cudaMemcpyHostToDevice));

  Timed tStencil{"stencil"}, tReduce{"reduce"}, tFinal{"reduce_final"}, tBranchy{"branchy"};
  dim3 sgrid(kN / 16, kN / 16), sblock(16, 16);
  auto wall0 = Clock::now();
  for (int r = 0; r < rounds; ++r) {
    timed(tStencil, [&] { stencil<<<sgrid, sblock>>>(a, b, kN); });
    timed(tStencil, [&] { stencil<<<sgrid, sblock>>>(b, a, kN); });
    timed(tReduce, [&] { reduce<<<kReduceBlocks, kThreads>>>(a, partial, int(cells), 1); });
    timed(tFinal, [&] { reduce<<<1, kThreads>>>(partial, sum, kReduceBlocks, 0); });
    timed(tBranchy, [&] { branchy<<<kBranchyN / 256, 256>>>(bin, bout, kBranchyN); });
  }
  double loop = std::chrono::duration<double>(Clock::now() - wall0).count();

  // The CPU reference of the final state.
  std::vector<float> tmp(cells);
  for (int s = 0; s < 2 * rounds; ++s) {
    for (int y = 0; y < kN; ++y)
      for (int x = 0; x < kN; ++x) {
        size_t i = size_t(y) * kN + x;
        tmp[i] = (x == 0 || y == 0 || x == kN - 1 || y == kN - 1)
                     ? grid[i]
                     : 0.2f * (grid[i] + grid[i - 1] + grid[i + 1] + grid[i - kN] + grid[i + kN]);
      }
    grid.swap(tmp);
  }
  std::vector<float> got(cells), gotB(kBranchyN);
  float gotSum = 0;
  CHECK(cudaMemcpy(got.data(), a, cells * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gotB.data(), bout, kBranchyN * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gotSum, sum, sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double want = 0;
  for (size_t i = 0; i < cells; ++i) {
    if (got[i] != grid[i]) ++bad;  // the same f32 operations in the same order: exact
    want += double(grid[i]) * grid[i];
  }
  for (int i = 0; i < kBranchyN; ++i)
    if (gotB[i] != branchyElement(unsigned(i))) ++bad;
  if (std::fabs(gotSum - want) > 1e-3 * std::fabs(want)) ++bad;
  std::printf("{\"mode\": \"rate\", \"rounds\": %d, \"loop_seconds\": %.6f, \"kernels\": {", rounds, loop);
  const Timed* all[] = {&tStencil, &tReduce, &tFinal, &tBranchy};
  for (int k = 0; k < 4; ++k)
    std::printf("%s\"%s\": {\"launches\": %d, \"seconds\": %.6f, \"cpu_seconds\": %.6f}", k ? ", " : "", all[k]->name,
                all[k]->launches, all[k]->seconds, all[k]->cpu);
  std::printf("}, \"sum\": %.6g, \"reference_sum\": %.6g, \"mismatches\": %d}\n", gotSum, want, bad);
  CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(partial)); CHECK(cudaFree(sum));
  CHECK(cudaFree(bin)); CHECK(cudaFree(bout));
  return bad != 0;
}

static int small(int n) {
  int* d;
  CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 32 * sizeof(int)));
  tiny<<<1, 32>>>(d);  // the first launch outside the timing
  CHECK(cudaDeviceSynchronize());
  double c = cpuSeconds();
  auto s = Clock::now();
  for (int k = 0; k < n; ++k) tiny<<<1, 32>>>(d);
  CHECK(cudaDeviceSynchronize());
  double t = std::chrono::duration<double>(Clock::now() - s).count();
  c = cpuSeconds() - c;
  int h[32];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("{\"mode\": \"small\", \"launches\": %d, \"seconds\": %.6f, \"us_per_launch\": %.3f, "
              "\"cpu_us_per_launch\": %.3f, \"ok\": %s}\n",
              n, t, 1e6 * t / n, 1e6 * c / n, h[5] == n + 1 ? "true" : "false");
  CHECK(cudaFree(d));
  return h[5] != n + 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "rate";
  if (!std::strcmp(mode, "rate")) return rate(argc > 2 ? std::atoi(argv[2]) : 8);
  if (!std::strcmp(mode, "small")) return small(argc > 2 ? std::atoi(argv[2]) : 20000);
  std::fprintf(stderr, "usage: %s rate [ROUNDS] | small [LAUNCHES]\n", argv[0]);
  return 2;
}
