// kernel: syncthreads_and_or
// launch: grid=[4,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(12,0,200)) ; out:out i32[256] (init: zero) ; n: scalar i32 = 256 ; threshold: scalar i32 = 190
// what: Uses __syncthreads_and and __syncthreads_or (bar.red.and/or) as block-wide votes on data-dependent predicates, then branches uniformly on the result.
extern "C" __global__ void syncthreads_and_or(const int* in, int* out, int n, int threshold)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int all_small = __syncthreads_and(v < threshold);
    int any_big = __syncthreads_or(v >= threshold);
    int any_zero = __syncthreads_or(v == 0 && i < n);
    int r;
    if (all_small)
        r = v + 1;
    else
        r = v - 1;
    if (i < n)
        out[i] = r * 4 + (any_big ? 2 : 0) + (any_zero ? 1 : 0);
}
