// kernel: syncthreads_count
// launch: grid=[3,1,1] block=[96,1,1] dynamic_shared=0
// params: in:in i32[288] (init: random(11,-10,10)) ; out:out i32[288] (init: zero) ; n: scalar i32 = 280
// what: Uses __syncthreads_count (bar.red.popc) to count positive inputs per block, then every thread combines the block-wide count with its own value.
extern "C" __global__ void syncthreads_count(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int positives = __syncthreads_count(v > 0);
    int evens = __syncthreads_count((v & 1) == 0 && i < n);
    if (i < n)
        out[i] = v * 1000 + positives * 10 + (evens & 7);
}
