// kernel: sync_needed_war
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(405,-1000,1000)) ; out:out i32[256] (init: zero)
// what: Each thread reads the next thread's shared slot into a register, passes a __syncthreads, overwrites its own slot, and after another __syncthreads reads a slot written in the second phase.
// barriers: #1 needed (read after write: s[t + 1] is filled by another thread). #2 needed (write
// after read: the thread owning s[t] must not overwrite it before thread t - 1 has read it).
// #3 needed (read after write: s[t + 2] holds another thread's second-phase value).
extern "C" __global__ void sync_needed_war(const int* in, int* out)
{
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    unsigned n = blockDim.x;
    int g = blockIdx.x * n + t;
    s[t] = in[g];
    __syncthreads();                                                // #1 needed
    int r = s[(t + 1) % n];
    __syncthreads();                                                // #2 needed
    s[t] = r * 5 + (int)t;
    __syncthreads();                                                // #3 needed
    out[g] = s[(t + 2) % n] - r;
}
