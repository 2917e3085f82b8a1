// Cubemap textures and texture queries on ptxrun exec (tests/lit/cudart/exec-cubemap.test): a
// cubemap CUDA array written face by face through a surface (surfCubemapwrite), read back with
// cudaMemcpy3D, sampled by texCubemap under point and linear filtering; a layered cubemap filled
// with cudaMemcpy3D and sampled by texCubemapLayered; txq and suq (inline PTX) on them. Every
// sample is checked against a CPU reference of the CUDA programming guide's cubemap table (face
// from the major axis, the linear weights 9-bit fixed point, clamped at the face's edges).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("cubemap: %s failed: %s\n", #call, cudaGetErrorName(e_));              \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

constexpr int W = 4, N = 128, CUBES = 2;

__global__ void writeFaces(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
  surfCubemapwrite(float(face * 100 + y * 10 + x) * 0.5f, s, x * (int)sizeof(float), y, face);
}

__global__ void sampleCube(cudaTextureObject_t t, const float4* dirs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, dirs[i].x, dirs[i].y, dirs[i].z);
}

__global__ void sampleCubeLayered(cudaTextureObject_t t, const float4* dirs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapLayered<float>(t, dirs[i].x, dirs[i].y, dirs[i].z, (int)dirs[i].w);
}

__device__ unsigned txqWidth(cudaTextureObject_t t) {
  unsigned v;
  asm volatile("txq.width.b32 %0, [%1];" : "=r"(v) : "l"(t));
  return v;
}

// The attributes, in the order main prints them.
__global__ void queries(cudaTextureObject_t t, cudaSurfaceObject_t s, unsigned* out) {
  asm volatile("txq.width.b32 %0, [%1];" : "=r"(out[0]) : "l"(t));
  asm volatile("txq.height.b32 %0, [%1];" : "=r"(out[1]) : "l"(t));
  asm volatile("txq.depth.b32 %0, [%1];" : "=r"(out[2]) : "l"(t));
  asm volatile("txq.array_size.b32 %0, [%1];" : "=r"(out[3]) : "l"(t));
  asm volatile("txq.channel_data_type.b32 %0, [%1];" : "=r"(out[4]) : "l"(t));
  asm volatile("txq.channel_order.b32 %0, [%1];" : "=r"(out[5]) : "l"(t));
  asm volatile("txq.normalized_coords.b32 %0, [%1];" : "=r"(out[6]) : "l"(t));
  asm volatile("txq.filter_mode.b32 %0, [%1];" : "=r"(out[7]) : "l"(t));
  asm volatile("txq.addr_mode_0.b32 %0, [%1];" : "=r"(out[8]) : "l"(t));
  asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(out[9]) : "l"(t), "r"(1));
  asm volatile("suq.width.b32 %0, [%1];" : "=r"(out[10]) : "l"(s));
  asm volatile("suq.height.b32 %0, [%1];" : "=r"(out[11]) : "l"(s));
  asm volatile("suq.array_size.b32 %0, [%1];" : "=r"(out[12]) : "l"(s));
  asm volatile("suq.memory_layout.b32 %0, [%1];" : "=r"(out[13]) : "l"(s));
  out[14] = txqWidth(t) * 2;
}

// ---- the CPU reference ------------------------------------------------------------------------

// The face and its normalized coordinates (u, v) for direction (x, y, z).
int cubeFace(float x, float y, float z, float& u, float& v) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z), m, s, t;
  int face;
  if (ax >= ay && ax >= az) face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
  else if (ay >= az) face = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
  else face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
  u = (s / m + 1.0f) * 0.5f, v = (t / m + 1.0f) * 0.5f;
  return face;
}

int clampIndex(int i) { return i < 0 ? 0 : i >= W ? W - 1 : i; }

float refPoint(const float* faces, float x, float y, float z) {
  float u, v;
  int f = cubeFace(x, y, z, u, v);
  return faces[(f * W + clampIndex((int)std::floor(v * W))) * W + clampIndex((int)std::floor(u * W))];
}

float refLinear(const float* faces, float x, float y, float z) {
  float u, v;
  int f = cubeFace(x, y, z, u, v);
  float xb = u * W - 0.5f, yb = v * W - 0.5f;
  int i = (int)std::floor(xb), j = (int)std::floor(yb);
  double a = std::floor(((double)xb - i) * 256 + 0.5) / 256, b = std::floor(((double)yb - j) * 256 + 0.5) / 256;
  auto t = [&](int di, int dj) { return (double)faces[(f * W + clampIndex(j + dj)) * W + clampIndex(i + di)]; };
  return (float)((1 - a) * (1 - b) * t(0, 0) + a * (1 - b) * t(1, 0) + (1 - a) * b * t(0, 1) + a * b * t(1, 1));
}

int main() {
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  // A cubemap's faces are square: (4, 3, 6) is refused.
  cudaArray_t bad;
  std::printf("cubemap: non-square faces: %s\n",
              cudaGetErrorName(cudaMalloc3DArray(&bad, &fdesc, make_cudaExtent(W, W - 1, 6), cudaArrayCubemap)));
  cudaGetLastError();

  // A cubemap written by a kernel through a surface, face by face, and read back.
  cudaArray_t cube;
  CHECK(cudaMalloc3DArray(&cube, &fdesc, make_cudaExtent(W, W, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = cube;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &res));
  writeFaces<<<6, dim3(W, W)>>>(surf);
  CHECK(cudaGetLastError());
  float faces[6][W][W];
  cudaMemcpy3DParms p = {};
  p.srcArray = cube;
  p.dstPtr = make_cudaPitchedPtr(faces, W * sizeof(float), W, W);
  p.extent = make_cudaExtent(W, W, 6);
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&p));
  int wrong = 0;
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < W; ++y)
      for (int x = 0; x < W; ++x) wrong += faces[f][y][x] != float(f * 100 + y * 10 + x) * 0.5f;
  std::printf("cubemap: surface writes %d wrong\n", wrong);

  // Directions towards every face, on axes, edges, corners (ties) and between.
  float4 dirs[N];
  for (int k = 0; k < N; ++k) {
    float a = -1.3f + 0.37f * (k % 8), b = 1.1f - 0.29f * (k / 8 % 8), c = (k % 3 - 1) * (0.5f + 0.1f * (k % 7));
    dirs[k] = k % 16 == 0 ? make_float4(k % 32 ? -1.0f : 1.0f, k % 64 < 32 ? 1.0f : 0.0f, 0.0f, 0.0f)
                          : make_float4(k % 2 ? a : c, k % 2 ? c : b, k % 2 ? b : a, float(k % 5 - 1));
  }
  float4* dDirs;
  float* dOut;
  CHECK(cudaMalloc(&dDirs, sizeof dirs));
  CHECK(cudaMalloc(&dOut, N * sizeof(float)));
  CHECK(cudaMemcpy(dDirs, dirs, sizeof dirs, cudaMemcpyHostToDevice));
  float out[N];
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  for (int linear = 0; linear < 2; ++linear) {
    td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
    sampleCube<<<N / 64, 64>>>(tex, dDirs, dOut, N);
    CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int k = 0; k < N; ++k) {
      float want = linear ? refLinear(&faces[0][0][0], dirs[k].x, dirs[k].y, dirs[k].z)
                          : refPoint(&faces[0][0][0], dirs[k].x, dirs[k].y, dirs[k].z);
      bad += std::fabs(out[k] - want) > 1e-4f;
    }
    std::printf("cubemap: %s %d wrong of %d\n", linear ? "linear" : "point", bad, N);
    wrong += bad;
    CHECK(cudaDestroyTextureObject(tex));
  }

  // A layered cubemap of two cubemaps, filled from the host; layers beyond clamp.
  static float layeredHost[CUBES * 6][W][W];
  for (int l = 0; l < CUBES * 6; ++l)
    for (int y = 0; y < W; ++y)
      for (int x = 0; x < W; ++x) layeredHost[l][y][x] = float(l * 1000 + y * 10 + x);
  cudaArray_t layered;
  CHECK(cudaMalloc3DArray(&layered, &fdesc, make_cudaExtent(W, W, 6 * CUBES), cudaArrayCubemap | cudaArrayLayered));
  cudaMemcpy3DParms q = {};
  q.srcPtr = make_cudaPitchedPtr(layeredHost, W * sizeof(float), W, W);
  q.dstArray = layered;
  q.extent = make_cudaExtent(W, W, 6 * CUBES);
  q.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&q));
  cudaResourceDesc lres = {};
  lres.resType = cudaResourceTypeArray;
  lres.res.array.array = layered;
  td.filterMode = cudaFilterModePoint;
  cudaTextureObject_t ltex;
  CHECK(cudaCreateTextureObject(&ltex, &lres, &td, nullptr));
  sampleCubeLayered<<<N / 64, 64>>>(ltex, dDirs, dOut, N);
  CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
  int lbad = 0;
  for (int k = 0; k < N; ++k) {
    int c = (int)dirs[k].w;
    c = c < 0 ? 0 : c >= CUBES ? CUBES - 1 : c;
    lbad += out[k] != refPoint(&layeredHost[c * 6][0][0], dirs[k].x, dirs[k].y, dirs[k].z);
  }
  std::printf("cubemap: layered %d wrong of %d\n", lbad, N);
  wrong += lbad;

  // txq on the layered cubemap, suq on the cubemap's surface.
  unsigned* dQ;
  CHECK(cudaMalloc(&dQ, 16 * sizeof(unsigned)));
  queries<<<1, 1>>>(ltex, surf, dQ);
  unsigned qv[16];
  CHECK(cudaMemcpy(qv, dQ, sizeof qv, cudaMemcpyDeviceToHost));
  std::printf("cubemap: txq width %u height %u depth %u array_size %u channel_data_type %u channel_order %u "
              "normalized_coords %u filter_mode %u addr_mode_0 %u level 1 width %u\n",
              qv[0], qv[1], qv[2], qv[3], qv[4], qv[5], qv[6], qv[7], qv[8], qv[9]);
  std::printf("cubemap: suq width %u height %u array_size %u memory_layout %u\n", qv[10], qv[11], qv[12], qv[13]);
  wrong += qv[14] != 2 * W;
  std::printf("cubemap: %s (%d wrong)\n", wrong ? "FAILED" : "PASSED", wrong);
  return wrong != 0;
}
