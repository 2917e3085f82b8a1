// kernel: smem_reduction
// launch: grid=[4,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[512] (init: random(10,-1000,1000)) ; out:out i32[4] (init: zero) ; n: scalar i32 = 500
// what: Classic tree reduction in a static __shared__ array with __syncthreads between halving steps; thread 0 of each block writes the block sum.
#define BLOCK 128
extern "C" __global__ void smem_reduction(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
