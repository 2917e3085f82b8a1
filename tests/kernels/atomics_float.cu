// kernel: atomics_float
// launch: grid=[4,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(14,-64,64)) ; facc:inout f32[4] (init: zero) ; dacc:inout f64[2] (init: zero) ; n: scalar i32 = 256
// what: Float and double atomicAdd of values that are exact small integers (or exact binary fractions), so the sum is exact and independent of the order in which threads commit.
extern "C" __global__ void atomics_float(const int* in, float* facc, double* dacc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    float f = (float)v;
    atomicAdd(&facc[0], f);
    atomicAdd(&facc[1], f * 0.25f);          // multiples of 1/4, still exact
    if (v > 0)
        atomicAdd(&facc[2], 1.0f);
    atomicAdd(&facc[3], (float)(v * v));
    atomicAdd(&dacc[0], (double)v * 0.5);
    atomicAdd(&dacc[1], (double)(i & 7));
}
