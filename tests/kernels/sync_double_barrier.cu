// kernel: sync_double_barrier
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(407,-1000,1000)) ; out:out i32[256] (init: zero)
// what: A read-after-write exchange through shared memory with two back-to-back __syncthreads between the writes and the reads.
// barriers: one of #1 and #2 is needed (the reads of s[t + 17] and s[t ^ 3] below them see
// slots written by other threads above them); the other is redundant, since no access lies
// between the two. Either may go, not both.
#define BLOCK 128
extern "C" __global__ void sync_double_barrier(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    s[t] = in[g] ^ (int)(t << 4);
    __syncthreads();                                                // #1
    __syncthreads();                                                // #2
    out[g] = s[(t + 17) & (BLOCK - 1)] - s[t ^ 3];
}
