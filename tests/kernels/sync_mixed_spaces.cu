// kernel: sync_mixed_spaces
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(408,-1000,1000)) ; out:out i32[256] (init: zero)
// what: Shared-memory reads of the neighbours' slots, then a __syncthreads, then a global store of the result; the barrier separates accesses to different memory spaces only.
// barriers: #1 needed (read after write on s). #2 is dead for an analysis that tracks each space
// apart: between #1 and #2 there are only shared reads, after #2 only a global store, so no
// space holds a conflicting pair across it.
#define BLOCK 128
extern "C" __global__ void sync_mixed_spaces(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    s[t] = in[g];
    __syncthreads();                                                // #1 needed
    int v = s[(t + 1) & (BLOCK - 1)] - s[(t + BLOCK - 1) & (BLOCK - 1)];
    __syncthreads();                                                // #2 dead (per space)
    out[g] = v * 4 + (int)t;
}
