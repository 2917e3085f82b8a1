// kernel: switch_uniform_loop
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(76,0,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A 12-iteration loop (kept a loop by #pragma unroll 1) whose body switches on k % 6, a warp-uniform selector: every trip takes one case with the whole warp.
extern "C" __global__ void switch_uniform_loop(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int acc = v;
#pragma unroll 1
    for (int k = 0; k < 12; ++k) {
        switch (k % 6) {
        case 0: acc += v; break;
        case 1: acc ^= k * 0x101; break;
        case 2: acc = acc * 3 - k; break;
        case 3: acc -= v >> 1; break;
        case 4: acc = (acc << 1) ^ v; break;
        default: acc += 17; break;
        }
    }
    out[i] = acc;
}
