// kernel: async_tile_pipeline
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[2560] (init: random(34,-1000,1000)) ; out:out i32[128] (init: zero) ; tiles: scalar i32 = 5 ; n: scalar i32 = 2498
// what: A double-buffered tile loop with asynchronous copies (__pipeline_memcpy_async: cp.async on sm_80 and later, plain copies before): the copy of tile k+1 is issued before the CTA works on tile k, __pipeline_wait_prior(1) lands tile k and __syncthreads makes it visible to the other threads; the copies of the tail past n are zero-filled (a cp.async with a src-size register, as CUTLASS writes it).
// barriers: #1 needed (read after the landing: each thread reads chunks other threads copied).
// #2 needed (write after read across the back edge: the copy of tile k+2 overwrites the buffer
// tile k was read from).
#include <cuda_pipeline.h>
#define BLOCK 64
#define CHUNK 4  // ints per thread and tile: one 16-byte copy
extern "C" __global__ void async_tile_pipeline(const int* in, int* out, int tiles, int n)
{
    __shared__ __align__(16) int buf[2][BLOCK * CHUNK];
    const unsigned t = threadIdx.x;
    const int base = blockIdx.x * tiles * BLOCK * CHUNK;
    int acc = 0;
    for (int k = -1; k < tiles; ++k) {
        const int next = k + 1;
        if (next < tiles) {
            const int first = base + (next * BLOCK + (int)t) * CHUNK;
            int valid = n - first;
            valid = valid < 0 ? 0 : valid > CHUNK ? CHUNK : valid;
            int* dst = &buf[next & 1][t * CHUNK];
            if (valid == CHUNK) {
                __pipeline_memcpy_async(dst, &in[first], 16);
            } else {
                // The tail: nothing is read past n, the bytes of the chunk beyond it are zeros.
                const int* src = valid > 0 ? &in[first] : in;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
                // As CUTLASS's cp_async_zfill: src-size in a register.
                const unsigned sdst = static_cast<unsigned>(__cvta_generic_to_shared(dst));
                asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(sdst), "l"(src), "r"(valid * 4)
                             : "memory");
#else
                for (int j = 0; j < CHUNK; ++j) dst[j] = j < valid ? src[j] : 0;
#endif
            }
        }
        __pipeline_commit();
        if (k < 0) continue;
        __pipeline_wait_prior(1);
        __syncthreads();                                            // #1 needed
        const int* tile = buf[k & 1];
        for (int j = 0; j < CHUNK; ++j)
            acc += tile[((t + 1 + 16 * j) % BLOCK) * CHUNK + j] * (k + j + 1);
        __syncthreads();                                            // #2 needed
    }
    out[blockIdx.x * BLOCK + t] = acc;
}
