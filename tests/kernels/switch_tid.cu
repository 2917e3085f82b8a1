// kernel: switch_tid
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(72,-50000,50000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A 10-way switch (plus default) whose selector (threadIdx.x >> 1) % 11 depends only on the thread index, so every warp splits the same deterministic way into 11 groups of lanes.
extern "C" __global__ void switch_tid(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int sel = (threadIdx.x >> 1) % 11;
    int r;
    switch (sel) {
    case 0: r = v + 1; break;
    case 1: r = v * 7; break;
    case 2: r = v - 100; break;
    case 3: r = v ^ 0x1234; break;
    case 4: r = v >> 3; break;
    case 5: r = v * 3 + i; break;
    case 6: r = (v & 0xff) << 4; break;
    case 7: r = v % 13; break;
    case 8: r = v < 100 ? v * 2 : v - 7; break;
    case 9: r = ~v; break;
    default: r = i; break;
    }
    out[i] = r;
}
