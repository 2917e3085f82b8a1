// Texture objects on ptxrun exec (tests/lit/cudart/exec-texture.test): a 2D CUDA array read
// with linear filtering under clamp (unnormalized coordinates) and wrap (normalized), a pitched
// uchar4 image read as normalized floats with border addressing, tex1Dfetch on linear memory and
// a 3D array filled with cudaMemcpy3D; every result is checked against a CPU reference of the
// texture-fetching rules (CUDA programming guide: the weights are 9-bit fixed point with 8
// fraction bits); and a surface written and read by kernels (surf2Dwrite, surf2Dread).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("texture: %s failed: %s\n", #call, cudaGetErrorName(e_));              \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

constexpr int W = 16, H = 8, N = 256;

__global__ void sample2D(cudaTextureObject_t t, const float2* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void sample2D4(cudaTextureObject_t t, const float2* at, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}

__global__ void fetch1D(cudaTextureObject_t t, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(t, i - 2);
}

__global__ void sample3D(cudaTextureObject_t t, float* out) {
  int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  out[(z * 3 + y) * 4 + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

__global__ void gather2D(cudaTextureObject_t t, const float2* at, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float4>(t, at[i].x, at[i].y, 0);
}

// Writes x * 10 + y through a surface, and reads it back through the same surface, doubled.
__global__ void writeSurface(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite(float(x * 10 + y), s, x * (int)sizeof(float), y);
}
__global__ void doubleSurface(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x;
  float v = surf2Dread<float>(s, x * (int)sizeof(float), y);
  surf2Dwrite(2 * v, s, x * (int)sizeof(float), y);
}

// ---- the CPU reference ------------------------------------------------------------------------

int address(int i, int n, bool wrap) {
  if (wrap) return ((i % n) + n) % n;
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

float linear2D(const float* T, float x, float y, bool wrap, bool normalized) {
  if (normalized) x *= W, y *= H;
  float xb = x - 0.5f, yb = y - 0.5f;
  int i = (int)std::floor(xb), j = (int)std::floor(yb);
  double a = std::floor(((double)xb - i) * 256 + 0.5) / 256, b = std::floor(((double)yb - j) * 256 + 0.5) / 256;
  auto t = [&](int di, int dj) { return (double)T[address(j + dj, H, wrap) * W + address(i + di, W, wrap)]; };
  return (float)((1 - a) * (1 - b) * t(0, 0) + a * (1 - b) * t(1, 0) + (1 - a) * b * t(0, 1) + a * b * t(1, 1));
}

int main() {
  float host[H][W];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) host[y][x] = 1.5f * x - 0.25f * y * y + (x * y % 5);

  // A 2D array, filled with cudaMemcpy2DToArray and read back.
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &fdesc, W, H));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  float back[H][W];
  CHECK(cudaMemcpy2DFromArray(back, W * sizeof(float), arr, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  int wrong = std::memcmp(back, host, sizeof host) != 0;

  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t clampTex, wrapTex;
  CHECK(cudaCreateTextureObject(&clampTex, &res, &td, nullptr));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  td.normalizedCoords = 1;
  CHECK(cudaCreateTextureObject(&wrapTex, &res, &td, nullptr));
  cudaResourceDesc got;
  CHECK(cudaGetTextureObjectResourceDesc(&got, wrapTex));
  if (got.resType != cudaResourceTypeArray || got.res.array.array != arr) ++wrong;

  // Coordinates inside, on texel centres, between them and outside the texture.
  float2 at[N];
  for (int k = 0; k < N; ++k) at[k] = make_float2(-3.0f + 0.37f * (k % 64) + 0.001f * k, -2.0f + 0.29f * (k / 8 % 40));
  float2 atN[N];
  for (int k = 0; k < N; ++k) atN[k] = make_float2(at[k].x / W, at[k].y / H);
  float2 *dAt, *dAtN;
  float* dOut;
  CHECK(cudaMalloc(&dAt, sizeof at));
  CHECK(cudaMalloc(&dAtN, sizeof atN));
  CHECK(cudaMalloc(&dOut, N * sizeof(float)));
  CHECK(cudaMemcpy(dAt, at, sizeof at, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dAtN, atN, sizeof atN, cudaMemcpyHostToDevice));
  float out[N];
  int clampWrong = 0, wrapWrong = 0;
  sample2D<<<N / 64, 64>>>(clampTex, dAt, dOut, N);
  CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
  for (int k = 0; k < N; ++k) clampWrong += std::fabs(out[k] - linear2D(&host[0][0], at[k].x, at[k].y, false, false)) > 1e-4f;
  sample2D<<<N / 64, 64>>>(wrapTex, dAtN, dOut, N);
  CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
  for (int k = 0; k < N; ++k) wrapWrong += std::fabs(out[k] - linear2D(&host[0][0], atN[k].x, atN[k].y, true, true)) > 1e-4f;
  std::printf("texture: clamp %d wrong, wrap %d wrong of %d\n", clampWrong, wrapWrong, N);
  wrong += clampWrong + wrapWrong;

  // tex2Dgather: the 2x2 texels linear filtering weighs, counter-clockwise from (i, j+1).
  float4* dG;
  CHECK(cudaMalloc(&dG, 64 * sizeof(float4)));
  gather2D<<<1, 64>>>(clampTex, dAt, dG, 64);
  float4 g[64];
  CHECK(cudaMemcpy(g, dG, sizeof g, cudaMemcpyDeviceToHost));
  int gatherWrong = 0;
  for (int k = 0; k < 64; ++k) {
    int i = (int)std::floor(at[k].x - 0.5f), j = (int)std::floor(at[k].y - 0.5f);
    auto t = [&](int x, int y) { return host[address(y, H, false)][address(x, W, false)]; };
    gatherWrong += g[k].x != t(i, j + 1) || g[k].y != t(i + 1, j + 1) || g[k].z != t(i + 1, j) || g[k].w != t(i, j);
  }
  std::printf("texture: gather %d wrong of 64\n", gatherWrong);
  wrong += gatherWrong;

  // A pitched uchar4 image read as normalized floats, border addressing, point sampling.
  uchar4 img[4][3];
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 3; ++x) img[y][x] = make_uchar4(x * 100, y * 80, 255, (x + y) * 17);
  void* pitched;
  size_t pitch;
  CHECK(cudaMallocPitch(&pitched, &pitch, 3 * sizeof(uchar4), 4));
  CHECK(cudaMemcpy2D(pitched, pitch, img, 3 * sizeof(uchar4), 3 * sizeof(uchar4), 4, cudaMemcpyHostToDevice));
  cudaResourceDesc pres = {};
  pres.resType = cudaResourceTypePitch2D;
  pres.res.pitch2D.devPtr = pitched;
  pres.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
  pres.res.pitch2D.width = 3;
  pres.res.pitch2D.height = 4;
  pres.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc ptd = {};
  ptd.addressMode[0] = ptd.addressMode[1] = cudaAddressModeBorder;
  ptd.filterMode = cudaFilterModePoint;
  ptd.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t imgTex;
  CHECK(cudaCreateTextureObject(&imgTex, &pres, &ptd, nullptr));
  float2 pat[20];
  for (int k = 0; k < 20; ++k) pat[k] = make_float2(-0.5f + (k % 5) * 0.9f, -0.5f + (k / 5) * 1.3f);
  float4* dOut4;
  CHECK(cudaMalloc(&dOut4, 20 * sizeof(float4)));
  CHECK(cudaMemcpy(dAt, pat, sizeof pat, cudaMemcpyHostToDevice));
  sample2D4<<<1, 20>>>(imgTex, dAt, dOut4, 20);
  float4 pout[20];
  CHECK(cudaMemcpy(pout, dOut4, sizeof pout, cudaMemcpyDeviceToHost));
  int imgWrong = 0;
  for (int k = 0; k < 20; ++k) {
    int x = (int)std::floor(pat[k].x), y = (int)std::floor(pat[k].y);
    float4 e = make_float4(0, 0, 0, 0);
    if (x >= 0 && x < 3 && y >= 0 && y < 4)
      e = make_float4(img[y][x].x / 255.0f, img[y][x].y / 255.0f, img[y][x].z / 255.0f, img[y][x].w / 255.0f);
    imgWrong += std::fabs(pout[k].x - e.x) > 1e-6f || std::fabs(pout[k].y - e.y) > 1e-6f || std::fabs(pout[k].z - e.z) > 1e-6f ||
                std::fabs(pout[k].w - e.w) > 1e-6f;
  }
  std::printf("texture: pitched uchar4 image %d wrong of 20\n", imgWrong);
  wrong += imgWrong;

  // tex1Dfetch on linear memory: indices -2 .. 9 of 8 ints; outside reads 0 (border) here.
  int lin[8] = {5, -7, 11, 13, -17, 19, 23, 29};
  int* dLin;
  int* dIOut;
  CHECK(cudaMalloc(&dLin, sizeof lin));
  CHECK(cudaMalloc(&dIOut, 12 * sizeof(int)));
  CHECK(cudaMemcpy(dLin, lin, sizeof lin, cudaMemcpyHostToDevice));
  cudaResourceDesc lres = {};
  lres.resType = cudaResourceTypeLinear;
  lres.res.linear.devPtr = dLin;
  lres.res.linear.desc = cudaCreateChannelDesc<int>();
  lres.res.linear.sizeInBytes = sizeof lin;
  cudaTextureDesc ltd = {};
  ltd.addressMode[0] = cudaAddressModeBorder;
  cudaTextureObject_t linTex;
  CHECK(cudaCreateTextureObject(&linTex, &lres, &ltd, nullptr));
  fetch1D<<<1, 12>>>(linTex, dIOut, 12);
  int iout[12];
  CHECK(cudaMemcpy(iout, dIOut, sizeof iout, cudaMemcpyDeviceToHost));
  int linWrong = 0;
  for (int k = 0; k < 12; ++k) linWrong += iout[k] != (k - 2 >= 0 && k - 2 < 8 ? lin[k - 2] : 0);
  std::printf("texture: tex1Dfetch %d wrong of 12\n", linWrong);
  wrong += linWrong;

  // A 3D array (4 x 3 x 2) filled with cudaMemcpy3D; texel centres read back exactly.
  float vol[2][3][4];
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) vol[z][y][x] = 100.0f * z + 10.0f * y + x;
  cudaArray_t arr3;
  CHECK(cudaMalloc3DArray(&arr3, &fdesc, make_cudaExtent(4, 3, 2)));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(vol, 4 * sizeof(float), 4, 3);
  p.dstArray = arr3;
  p.extent = make_cudaExtent(4, 3, 2);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  cudaResourceDesc vres = {};
  vres.resType = cudaResourceTypeArray;
  vres.res.array.array = arr3;
  cudaTextureDesc vtd = {};
  vtd.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t volTex;
  CHECK(cudaCreateTextureObject(&volTex, &vres, &vtd, nullptr));
  sample3D<<<1, dim3(4, 3, 2)>>>(volTex, dOut);
  float vout[24];
  CHECK(cudaMemcpy(vout, dOut, sizeof vout, cudaMemcpyDeviceToHost));
  int volWrong = std::memcmp(vout, vol, sizeof vout) != 0;
  std::printf("texture: 3D array %d wrong\n", volWrong);
  wrong += volWrong;

  // A surface over an 8x4 float array: written, read and written again by kernels, then copied
  // back with cudaMemcpy2DFromArray.
  cudaArray_t sarr;
  CHECK(cudaMallocArray(&sarr, &fdesc, 8, 4, cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = sarr;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &sres));
  writeSurface<<<4, 8>>>(surf);
  doubleSurface<<<4, 8>>>(surf);
  float sback[4][8];
  CHECK(cudaMemcpy2DFromArray(sback, 8 * sizeof(float), sarr, 0, 0, 8 * sizeof(float), 4, cudaMemcpyDeviceToHost));
  int surfWrong = 0;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) surfWrong += sback[y][x] != 2.0f * (x * 10 + y);
  std::printf("texture: surface %d wrong of 32\n", surfWrong);
  wrong += surfWrong;
  CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(sarr));

  // Linear filtering of integers is refused.
  cudaTextureDesc bad = {};
  bad.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t badTex;
  std::printf("texture: linear filter of ints: %s\n", cudaGetErrorName(cudaCreateTextureObject(&badTex, &lres, &bad, nullptr)));
  cudaGetLastError();

  CHECK(cudaDestroyTextureObject(clampTex));
  CHECK(cudaDestroyTextureObject(wrapTex));
  CHECK(cudaDestroyTextureObject(imgTex));
  CHECK(cudaDestroyTextureObject(linTex));
  CHECK(cudaDestroyTextureObject(volTex));
  CHECK(cudaFreeArray(arr));
  CHECK(cudaFreeArray(arr3));
  CHECK(cudaFree(pitched));
  std::printf("texture: %s (%d wrong)\n", wrong ? "FAILED" : "PASSED", wrong);
  return wrong ? 1 : 0;
}
