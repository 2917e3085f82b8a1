// kernel: dense_switch
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(6,0,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A dense 8-way switch (plus default) on a per-thread selector with different arithmetic in each case and one fallthrough, exercising multi-way divergence.
extern "C" __global__ void dense_switch(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int r = i;
    switch (v % 9) {
    case 0: r = v + 1; break;
    case 1: r = v * 3; break;
    case 2: r = v - 17; break;
    case 3: r = v ^ 0x55; break;
    case 4: r = v << 2;            // fallthrough
    case 5: r += v >> 1; break;
    case 6: r = v * v; break;
    case 7: r = -v; break;
    default: r = 42 + i; break;
    }
    out[i] = r;
}
