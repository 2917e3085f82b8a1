// kernel: dynamic_smem
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=1024
// params: in:in i32[256] (init: random(39,-1000,1000)) ; out:out i32[256] (init: zero) ; n: scalar i32 = 256
// what: extern __shared__ dynamic shared memory split into two typed regions (int and short) at runtime offsets; threads reverse their block's tile through it.
extern "C" __global__ void dynamic_smem(const int* in, int* out, int n)
{
    extern __shared__ int dyn[];
    int* vals = dyn;                                            // blockDim.x ints
    short* tags = reinterpret_cast<short*>(dyn + blockDim.x);   // blockDim.x shorts
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    vals[t] = (i < n) ? in[i] : 0;
    tags[t] = (short)(t * 3 - 100);
    __syncthreads();
    unsigned r = blockDim.x - 1 - t;
    if (i < n)
        out[i] = vals[r] * 2 + tags[r];
}
