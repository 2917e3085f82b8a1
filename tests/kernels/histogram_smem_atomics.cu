// kernel: histogram_smem_atomics
// launch: grid=[4,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in u8[2048] (init: random(30,0,255)) ; hist:inout u32[64] (init: zero) ; n: scalar i32 = 2000
// what: 64-bin histogram: per-block privatized bins in shared memory updated with shared atomicAdd over a grid-stride loop, then merged into global bins with global atomicAdd.
#define BINS 64
extern "C" __global__ void histogram_smem_atomics(const unsigned char* in, unsigned* hist, int n)
{
    __shared__ unsigned sh[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        sh[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&sh[in[i] >> 2], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (sh[b] != 0)
            atomicAdd(&hist[b], sh[b]);
}
