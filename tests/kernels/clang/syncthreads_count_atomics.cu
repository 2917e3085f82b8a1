// kernel: clang_syncthreads_count_atomics
// launch: grid=[3,1,1] block=[96,1,1] dynamic_shared=0
// params: in:in i32[288] (init: random(109,-10,10)) ; out:out i32[288] (init: zero) ; acc:inout i32[3] (init: values(0,2147483647,-2147483648)) ; n: scalar i32 = 280
// what: clang-compiled block votes (bar.red.popc / and / or via __nvvm_bar0_*) combined with order-independent global atomics (add, min, max).
#include "shim.h"

extern "C" __global__ void clang_syncthreads_count_atomics(const int* in, int* out, int* acc, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int v = (i < n) ? in[i] : 0;
    int positives = __syncthreads_count(v > 0);
    int all_small = __syncthreads_and(v < 9 + (int)blockIdx.x);  // false, then true once the bound passes 10
    int any_zero = __syncthreads_or(v == 0 && i < n);
    if (i < n) {
        out[i] = v * 1000 + positives * 10 + (all_small ? 2 : 0) + (any_zero ? 1 : 0);
        atomicAdd(&acc[0], v);
        atomicMin(&acc[1], v);
        atomicMax(&acc[2], v);
    }
}
