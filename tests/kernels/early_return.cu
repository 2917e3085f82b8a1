// kernel: early_return
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(9,-100,100)) ; out:out i32[128] (init: iota) ; n: scalar i32 = 100
// what: Several data-dependent early returns at different points of the kernel (out-of-range, negative input, zero input), leaving some outputs untouched.
extern "C" __global__ void early_return(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    if (v < -50)
        return;
    int r = v * 2 + 1;
    if (v == 0) {
        out[i] = -1;
        return;
    }
    if (r > 150)
        return;
    for (int k = 0; k < (v & 7); ++k)
        r += k * v;
    out[i] = r;
}
