// kernel: sync_uniform_branch
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(409,-1000,1000)) ; out:out i32[256] (init: zero)
// what: Two __syncthreads inside an if on blockIdx.x & 1, which every thread of a CTA decides the same way: odd CTAs exchange values through shared memory, even CTAs skip the branch and its barriers.
// barriers: #1 is dead: before it there is only a global load, after it (up to #2) only a
// shared store, so nothing conflicts across it. #2 is needed: each thread then reads the slot
// the next thread stored (read after write).
#define BLOCK 128
extern "C" __global__ void sync_uniform_branch(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    int x = in[g];
    int r = x + 1;
    if (blockIdx.x & 1) {                                           // uniform within the CTA
        __syncthreads();                                            // #1 dead
        s[t] = x * 3;
        __syncthreads();                                            // #2 needed
        r = s[(t + 1) & (BLOCK - 1)] - x;
    }
    out[g] = r;
}
