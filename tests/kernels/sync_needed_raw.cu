// kernel: sync_needed_raw
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(404,-1000,1000)) ; out:out i32[256] (init: zero)
// what: Producer/consumer through shared memory: each thread writes s[t], passes a __syncthreads, then reads the slot of the next thread, s[(t + 1) % blockDim.x].
// barriers: #1 needed: the slot read below it was written by another thread above it (read after
// write); without it a thread may read the neighbour's slot before it is filled.
extern "C" __global__ void sync_needed_raw(const int* in, int* out)
{
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    s[t] = in[g] * 3 - 1;
    __syncthreads();                                                // #1 needed
    out[g] = s[(t + 1) % blockDim.x] + s[t];
}
