// kernel: irreducible_goto
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(62,0,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A loop with two entry points built from goto (irreducible control flow): odd inputs enter at label B, even at label A; the cycle alternates A/B with a bounded, data-dependent exit.
extern "C" __global__ void irreducible_goto(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = (unsigned)in[i];
    unsigned acc = 0;
    int iter = 0;
    if (v & 1u)
        goto B;
A:
    acc += v & 0xffu;
    v = v * 5u + 3u;
    if (++iter >= 20 || (acc & 7u) == 0u)
        goto done;
B:
    acc ^= v >> 3;
    v = (v >> 1) + (unsigned)i;
    if (++iter >= 20 || v % 11u == 0u)
        goto done;
    goto A;
done:
    out[i] = (int)(acc * 32u) + iter;
}
