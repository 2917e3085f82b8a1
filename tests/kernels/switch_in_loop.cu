// kernel: switch_in_loop
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(12,0,100000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A dense 8-way switch inside a 16-iteration loop, its selector the low bits of a per-thread value that changes every iteration: the warp splits at the switch on every trip.
extern "C" __global__ void switch_in_loop(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned s = (unsigned)in[i];
    int acc = 0;
    for (int k = 0; k < 16; ++k) {
        switch ((s >> 3) & 7) {
        case 0: acc += 1; break;
        case 1: acc ^= 0x55; break;
        case 2: acc -= 7; break;
        case 3: acc = acc * 3 + 1; break;
        case 4: acc += k; break;
        case 5: acc ^= k << 4; break;
        case 6: acc -= k * 2; break;
        default: acc += 100; break;
        }
        s = s * 1103515245u + 12345u;
    }
    out[i] = acc;
}
