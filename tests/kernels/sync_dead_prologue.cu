// kernel: sync_dead_prologue
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(401,-1000,1000)) ; out:out i32[256] (init: zero)
// what: A __syncthreads placed before the kernel touches any memory (only a per-thread salt is computed in registers above it), followed by a shared-memory exchange with the next thread's slot.
// barriers: #1 is dead: no shared or global access precedes it, so there is nothing for it to
// order. #2 is needed: every thread reads s[t + 1], written by another thread (read after write).
#define BLOCK 128
extern "C" __global__ void sync_dead_prologue(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    int salt = (int)((t * 2654435761u) >> 24) - (int)blockIdx.x;   // registers only
    __syncthreads();                                                // #1 dead
    s[t] = in[g] + salt;
    __syncthreads();                                                // #2 needed
    out[g] = s[(t + 1) & (BLOCK - 1)] - 2 * s[t];
}
