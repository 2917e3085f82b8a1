// kernel: early_exit_with_barrier
// launch: grid=[4,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(57,-100,100)) ; out:out i32[256] (init: zero) ; n: scalar i32 = 120 ; active_blocks: scalar i32 = 3
// what: Block-uniform early exits (CTA 3 leaves via active_blocks, CTA 2 via n; both return before any barrier) followed by __syncthreads in the surviving CTAs; out-of-range threads in surviving CTAs stay for the barrier and only skip the loads/stores.
extern "C" __global__ void early_exit_with_barrier(const int* in, int* out, int n, int active_blocks)
{
    __shared__ int s[64];
    if ((int)blockIdx.x >= active_blocks)          // uniform across the CTA
        return;
    if ((int)(blockIdx.x * blockDim.x) >= n)       // uniform across the CTA
        return;
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    bool valid = i < n;                            // NOT used to return
    s[t] = valid ? in[i] : 0;
    __syncthreads();
    int r = s[t] + s[(t + 1) & 63] + s[(t + 63) & 63];
    __syncthreads();
    s[t] = r;
    __syncthreads();
    if (valid)
        out[i] = s[63 - t] - r;
}
