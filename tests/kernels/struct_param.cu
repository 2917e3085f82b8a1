// kernel: struct_param
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in f32[128] (init: random(63,-10,10)) ; out:out f32[256] (init: zero) ; p: scalar struct Params[32 bytes, align 8] = {f32@0 scale=2.5, f32@4 offset=-1.0, i32@8 mode=3, i8@12 shift=5, f64@16 bias0=1.0, f64@24 bias1=0.5} ; n: scalar i32 = 128
// what: Kernel parameter that is a struct passed by value (mixed float/int/char/double members with padding in .param space), and a __noinline__ function returning a struct by value.
struct Params {
    float scale;
    float offset;
    int mode;
    char shift;
    double bias[2];
};

struct Pair {
    float lo, hi;
};

__device__ __noinline__ Pair make_pair(float v, const Params& p)
{
    Pair r;
    float s = v * p.scale + p.offset;
    r.lo = fminf(s, (float)p.bias[0]);
    r.hi = fmaxf(s, (float)p.bias[1]) + (float)(p.mode << p.shift);
    return r;
}

extern "C" __global__ void struct_param(const float* in, float* out, Params p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Pair q = make_pair(in[i], p);
    out[2 * i] = q.lo;
    out[2 * i + 1] = (i % p.mode == 0) ? q.hi : q.hi - q.lo;
}
