// kernel: sync_dead_epilogue
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(402,-1000,1000)) ; out:out i32[256] (init: zero)
// what: Three barrier-separated shared-memory phases (fill, read the mirrored half, overwrite and read a neighbour), then one more __syncthreads after the final global store, with nothing after it but the return.
// barriers: #1 needed (read after write: s[t + 64] comes from another thread), #2 needed (write
// after read: s[t] is overwritten while another thread may still be reading it), #3 needed (read
// after write on the overwritten slots). #4 is dead: no thread accesses memory after it.
#define BLOCK 128
extern "C" __global__ void sync_dead_epilogue(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    s[t] = in[g];
    __syncthreads();                                                // #1 needed
    int v = s[t] + s[(t + BLOCK / 2) & (BLOCK - 1)];
    __syncthreads();                                                // #2 needed
    s[t] = v * 3;
    __syncthreads();                                                // #3 needed
    out[g] = s[(t + 1) & (BLOCK - 1)] - v;
    __syncthreads();                                                // #4 dead
}
