// kernel: clang_divergent_if_else
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(101,-1000,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 120
// what: clang/LLVM NVPTX version of a data-dependent if/else (odd/even input) with an early exit for threads past n; checks divergence/reconvergence in LLVM-generated PTX.
#include "shim.h"

extern "C" __global__ void clang_divergent_if_else(const int* in, int* out, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    int v = in[i];
    int r;
    if (v & 1) {
        r = v * 3 + 1;
        r ^= (r >> 2);
        r += in[(i + 1) % n];
    } else {
        r = v / 2;
        r -= i * 7;
        r *= in[(i + 3) % n] | 1;
    }
    out[i] = r + 5;
}
