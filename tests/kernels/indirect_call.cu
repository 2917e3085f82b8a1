// kernel: indirect_call
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(66,-1000,1000)) ; sel:in i32[128] (init: random(67,0,3)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Indirect calls through a __device__ table of function pointers selected per thread (divergent call targets; PTX call with a register target and a .callprototype).
typedef int (*op_fn)(int, int);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor(int a, int b) { return (a ^ b) - 1; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b * 2; }

__device__ op_fn table[4] = {op_add, op_mul, op_xor, op_max};

extern "C" __global__ void indirect_call(const int* in, const int* sel, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    op_fn f = table[sel[i] & 3];
    int r = f(in[i], i);
    op_fn g = table[(sel[i] + 1) & 3];
    out[i] = g(r, 3);
}
