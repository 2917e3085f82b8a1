// kernel: loop_divergent_exit
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(36,1,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A loop whose trip count depends on threadIdx.x (lane-varying), plus a Collatz-style while loop with a data-dependent exit capped at 200 iterations, so lanes leave the loops at different times.
extern "C" __global__ void loop_divergent_exit(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int acc = 0;
    for (unsigned k = 0; k < threadIdx.x % 37; ++k)
        acc += in[(i + k) % n] ^ (int)k;
    unsigned x = (unsigned)in[i];
    int steps = 0;
    while (x != 1u && steps < 200) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        ++steps;
    }
    out[i] = acc * 256 + steps;
}
