// kernel: switch_holes
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(71,-200,5000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A switch on in[i] % 20 with 13 case labels over 0..19, several holes, labels sharing one body (3, 4 and 11; 8 and 9; 15 and 17) and a default that also takes the negative remainders.
extern "C" __global__ void switch_holes(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int r;
    switch (v % 20) {
    case 0: r = v + 7; break;
    case 1: r = v * 5 - 3; break;
    case 3: case 4: case 11: r = v ^ 0x2a5; break;
    case 6: r = (v >> 2) + i; break;
    case 8: case 9: r = v * v; break;
    case 12: r = 1000 - v; break;
    case 14: r = v << 3; break;
    case 15: case 17: r = (v & 0xf0) | i; break;
    case 19: r = v / 3; break;
    default: r = -v - i; break;
    }
    out[i] = r;
}
