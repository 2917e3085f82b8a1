// kernel: triangle_store
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(35,-100,100)) ; out:inout i32[128] (init: iota) ; aux:inout i32[128] (init: zero) ; n: scalar i32 = 128
// what: If-then without else ("triangle") whose body is a conditional store, plus a conditional read-modify-write; untouched outputs keep their initial values.
extern "C" __global__ void triangle_store(const int* in, int* out, int* aux, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    if (v > 10)
        out[i] = v * 2;
    if (v < -50)
        aux[i] += v;
    if ((v & 3) == 1)
        aux[i] ^= 0x100;
}
