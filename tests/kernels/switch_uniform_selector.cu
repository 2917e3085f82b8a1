// kernel: switch_uniform_selector
// launch: grid=[12,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[768] (init: random(11,-500,500)) ; out:out i32[768] (init: zero) ; n: scalar i32 = 768
// what: A dense 10-way switch on blockIdx.x (one selector per CTA, so warps never split at it) with a default for the blocks past the cases: a jump table costs one indirect branch per warp against a compare tree.
extern "C" __global__ void switch_uniform_selector(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int r;
    switch (blockIdx.x) {
    case 0: r = v + 3; break;
    case 1: r = v * 5; break;
    case 2: r = v - 11; break;
    case 3: r = v ^ 0x3c; break;
    case 4: r = v << 3; break;
    case 5: r = (v >> 2) + 7; break;
    case 6: r = v * v - 1; break;
    case 7: r = -v + 13; break;
    case 8: r = (v & 0xff) | 0x100; break;
    case 9: r = v * 9 + 2; break;
    default: r = 77; break;
    }
    out[i] = r;
}
