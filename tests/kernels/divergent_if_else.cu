// kernel: divergent_if_else
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(1,-1000,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 120
// what: Each thread takes one of two data-dependent branches (odd/even input), so half-warps diverge and reconverge before the store; threads past n exit early.
extern "C" __global__ void divergent_if_else(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
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
