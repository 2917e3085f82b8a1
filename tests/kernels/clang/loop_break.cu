// kernel: clang_loop_break
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: data:in i32[256] (init: random(104,-10,100)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128 ; len: scalar i32 = 256
// what: clang-compiled bounded loop with data-dependent continue and two break conditions (negative value, sum over a limit), so lanes exit the loop on different iterations.
#include "shim.h"

extern "C" __global__ void clang_loop_break(const int* data, int* out, int n, int len)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    int sum = 0;
    int count = 0;
    for (int k = 0; k < 64; ++k) {
        int v = data[(i * 3 + k) % len];
        if (v & 1)
            continue;
        if (v < 0)
            break;
        sum += v;
        ++count;
        if (sum > 1500)
            break;
    }
    out[i] = sum * 100 + count;
}
