// kernel: sync_count
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(410,-100,100)) ; out:out i32[256] (init: zero)
// what: __syncthreads_count counts the CTA's positive inputs and also orders the shared stores before the reads; a plain __syncthreads right after it is kept by the programmer out of caution.
// barriers: the __syncthreads_count must stay: its count is stored, and it is the barrier that
// orders the shared stores before the neighbour reads (read after write). The plain #2 is dead:
// nothing touches memory between the counting barrier and it.
#define BLOCK 128
extern "C" __global__ void sync_count(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    int v = in[g];
    s[t] = v;
    int c = __syncthreads_count(v > 0);                             // #1 counting barrier
    __syncthreads();                                                // #2 dead
    out[g] = s[(t + 7) & (BLOCK - 1)] * 1000 + c;
}
