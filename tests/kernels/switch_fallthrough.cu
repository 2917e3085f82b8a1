// kernel: switch_fallthrough
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(75,0,100000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: An 8-way switch on in[i] & 7 with C fall-through chains (0 into 1; 2 into 3 into 4; 5 into 6), so case bodies are shared tails entered from several predecessors.
extern "C" __global__ void switch_fallthrough(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int r = i;
    switch (v & 7) {
    case 0: r += 3;             // fallthrough
    case 1: r ^= v; break;
    case 2: r = v * 5;          // fallthrough
    case 3: r -= 11;            // fallthrough
    case 4: r += v >> 2; break;
    case 5: r = ~v;             // fallthrough
    case 6: r *= 3; break;
    default: r = v + 1000; break;
    }
    out[i] = r;
}
