// kernel: clang_noinline_call
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(106,-1000,1000)) ; b:in i32[128] (init: random(107,1,50)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: clang-compiled kernel calling a noinline device function (.func with a pointer out-parameter and return value) twice; the callee branches internally.
#include "shim.h"

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

extern "C" __global__ void clang_noinline_call(const int* a, const int* b, int* out, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    int extra = i;
    int r1 = mix(a[i], b[i], &extra);
    int r2 = mix(b[i], r1, &extra);
    out[i] = r1 + r2 * 2 + extra;
}
