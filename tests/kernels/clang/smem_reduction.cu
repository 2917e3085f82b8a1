// kernel: clang_smem_reduction
// launch: grid=[4,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[512] (init: random(105,-1000,1000)) ; out:out i32[4] (init: zero) ; total:inout i32[1] (init: zero) ; n: scalar i32 = 500
// what: clang-compiled shared-memory tree reduction with bar.sync between halving steps; thread 0 stores the block sum and atomically adds it into a global total (order-independent).
#include "shim.h"

#define BLOCK 128
extern "C" __global__ void clang_smem_reduction(const int* in, int* out, int* total, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    int i = (int)(blockIdx.x * BLOCK + tid);
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
        atomicAdd(total, sdata[0]);
    }
}
