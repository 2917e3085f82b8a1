// kernel: printf_kernel
// launch: grid=[2,1,1] block=[32,1,1] dynamic_shared=0
// params: in:in i32[64] (init: iota) ; fin:in f32[64] (init: random(24,-10,10)) ; out:out i32[64] (init: zero) ; n: scalar i32 = 64
// what: Device printf (vprintf with a packed argument buffer) of ints, unsigned hex, 64-bit, double-promoted floats and a string, from lane 0 of each block only; also writes an output.
#include <cstdio>
extern "C" __global__ void printf_kernel(const int* in, const float* fin, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i] * 3;
    if (threadIdx.x == 0) {
        printf("block %d thread %u: v=%d hex=%x\n", (int)blockIdx.x, threadIdx.x, v, (unsigned)v * 0x9e3779b9u);
        printf("f=%f big=%lld %s\n", fin[i], (long long)v << 40, "ptxopt");
    }
    out[i] = v;
}
