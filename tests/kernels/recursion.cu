// kernel: recursion
// launch: grid=[2,1,1] block=[32,1,1] dynamic_shared=0
// params: in:in i32[64] (init: random(22,0,15)) ; out:out i32[64] (init: zero) ; n: scalar i32 = 64
// what: Recursive __noinline__ device functions (bounded-depth Fibonacci and a factorial mod 2^32) called with per-thread divergent depth, exercising call/return and stack frames.
__device__ __noinline__ int fib(int k)
{
    if (k < 2)
        return k;
    return fib(k - 1) + fib(k - 2);
}

__device__ __noinline__ unsigned fact(unsigned k)
{
    if (k <= 1)
        return 1u;
    return k * fact(k - 1);
}

extern "C" __global__ void recursion(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int d = in[i] & 15;                 // depth bounded to 15
    out[i] = fib(d) * 1000 + (int)(fact((unsigned)d) & 0x3ff);
}
