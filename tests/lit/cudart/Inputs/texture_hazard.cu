// A texture and a surface over one CUDA array. `sameLaunch` writes texels through the surface
// and, after a barrier, fetches a neighbour's texel through the texture: the texture cache does
// not see writes of the same launch, so the fetch reads undefined data on a GPU (ptxrun
// --check-races reports it). `nextLaunch` fetches what an earlier launch wrote: correct.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void writeThenFetch(cudaSurfaceObject_t surf, cudaTextureObject_t tex, float* out) {
  const int x = threadIdx.x;
  surf2Dwrite(float(x), surf, x * int(sizeof(float)), 0);
  __syncthreads();
  out[x] = tex2D<float>(tex, float((x + 1) % 32) + 0.5f, 0.5f);
}

__global__ void fetch(cudaTextureObject_t tex, float* out) {
  const int x = threadIdx.x;
  out[x] = tex2D<float>(tex, float((x + 1) % 32) + 0.5f, 0.5f);
}

int main() {
  cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  if (cudaMallocArray(&array, &fmt, 32, 1, cudaArraySurfaceLoadStore) != cudaSuccess) return 1;
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  cudaSurfaceObject_t surf;
  if (cudaCreateTextureObject(&tex, &res, &td, nullptr) != cudaSuccess) return 1;
  if (cudaCreateSurfaceObject(&surf, &res) != cudaSuccess) return 1;
  float* out;
  cudaMalloc(&out, 32 * sizeof(float));
  writeThenFetch<<<1, 32>>>(surf, tex, out);
  fetch<<<1, 32>>>(tex, out);
  float host[32];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int x = 0; x < 32; ++x) wrong += host[x] != float((x + 1) % 32);
  std::printf("texture_hazard: %d wrong of 32\n", wrong);
  return wrong != 0;
}
