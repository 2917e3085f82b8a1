// kernel: clang_warp_shuffle
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(108,-1000,1000)) ; out:out i32[256] (init: zero) ; n: scalar i32 = 256
// what: clang-compiled warp shuffles (shfl.sync down/up/bfly/idx via inline PTX from shim.h): full-warp sum, inclusive scan, butterfly max, rotate and a ballot-based rank.
#include "shim.h"

extern "C" __global__ void clang_warp_shuffle(const int* in, int* out, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int lane = (int)(threadIdx.x & 31);
    int v = (i < n) ? in[i] : 0;           // all lanes stay active

    int sum = v;
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    sum = __shfl_sync(0xffffffffu, sum, 0);

    int scan = v;
    for (int off = 1; off < 32; off <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, scan, off);
        if (lane >= off)
            scan += t;
    }

    int mx = v;
    for (int m = 1; m < 32; m <<= 1)
        mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, m));

    int rot = __shfl_sync(0xffffffffu, v, lane + 5);
    unsigned voters = __ballot_sync(0xffffffffu, v > 0);
    int rank = __popc(voters & ((1u << lane) - 1u));

    if (i < n)
        out[i] = (sum ^ scan) + mx * 3 + rot + rank;
}
