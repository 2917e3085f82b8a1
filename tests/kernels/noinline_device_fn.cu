// kernel: noinline_device_fn
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(20,-1000,1000)) ; b:in i32[128] (init: random(21,1,50)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: The kernel calls a __noinline__ device function (a real PTX .func with params and a return value) twice with different arguments; the callee itself branches.
__device__ __noinline__ int mix(int x, int y, int* extra)
{
    int r = x * 31 + y;
    if (r < 0)
        r = -r + (y & 7);
    else
        r = r / (y | 1);
    *extra += r & 0xf;
    return r;
}

extern "C" __global__ void noinline_device_fn(const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int extra = i;
    int r1 = mix(a[i], b[i], &extra);
    int r2 = mix(b[i], r1, &extra);
    out[i] = r1 + r2 * 2 + extra;
}
