// kernel: texture_sampling
// kernel: surface_write
// launch: grid=[2,1,1] block=[32,1,1] dynamic_shared=0
// params: t1, t2, t3, l1, l2: f32 textures (1D, 2D, 3D, layered 1D, layered 2D; the sampler is
// the spec variant's) ; coords:in f32[192] (random) ; out:out f32[384] (zero)
// what: Texture objects of each dimension under each filter and address mode (issue #34): every
// thread samples the five textures at its own coordinates (normalized or not, as the variant
// says), the layered ones at layer t % 3 and t % 2. surface_write: every thread of a 2D grid of
// threads writes (x + 100 y) into an s32 surface at texel (x, y), and x, y past the surface's
// extent are skipped by the kernel (the .trap default would fault).
#include <cuda_runtime.h>

extern "C" __global__ void texture_sampling(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                            cudaTextureObject_t l1, cudaTextureObject_t l2, const float* coords,
                                            float* out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float x = coords[3 * t], y = coords[3 * t + 1], z = coords[3 * t + 2];
    out[6 * t + 0] = tex1D<float>(t1, x);
    out[6 * t + 1] = tex2D<float>(t2, x, y);
    out[6 * t + 2] = tex3D<float>(t3, x, y, z);
    out[6 * t + 3] = tex1DLayered<float>(l1, x, t % 3);
    out[6 * t + 4] = tex2DLayered<float>(l2, x, y, t % 2);
    out[6 * t + 5] = tex2D<float>(t2, y, x);
}

extern "C" __global__ void surface_write(cudaSurfaceObject_t s, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) surf2Dwrite(x + 100 * y, s, x * (int)sizeof(int), y);
}
