// kernel: float_math
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in f32[128] (init: random(42,-100,100)) ; b:in f32[128] (init: random(43,0.5,50)) ; out:out f32[640] (init: zero) ; iout:out i32[640] (init: zero) ; n: scalar i32 = 128
// what: Float32 ops: IEEE sqrtf and division, approximate rsqrtf/__expf/__fdividef, fmaf, fminf/fmaxf/fabsf, floor/ceil/trunc/rint and float<->int conversions with explicit rounding intrinsics (__float2int_rn/rz/rd/ru, __int2float_rn, __float2uint_rn).
extern "C" __global__ void float_math(const float* a, const float* b, float* out, int* iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i];
    float y = b[i];                       // y > 0
    float* o = out + i * 5;
    int* q = iout + i * 5;
    o[0] = sqrtf(y) + x / y;
    o[1] = rsqrtf(y) * __expf(x * 0.05f) + __fdividef(x, y);
    o[2] = fmaf(x, y, -1.25f) + fminf(x, y) * fmaxf(x, -y) + fabsf(x);
    o[3] = floorf(x / 3.0f) + ceilf(x * 0.3f) + truncf(x / 7.0f) + rintf(x * 0.5f);
    o[4] = __int2float_rn(i * 1234567) + __uint2float_rz(0xfffffff0u - (unsigned)i) + __saturatef(x * 0.01f) + __fmul_rz(x, y) + __fadd_rd(x, y);
    q[0] = __float2int_rn(x * 1.5f);
    q[1] = __float2int_rz(x * 1.5f);
    q[2] = __float2int_rd(x * 1.5f);
    q[3] = __float2int_ru(x * 1.5f);
    q[4] = (int)__float2uint_rn(fabsf(x) * 1000.0f) + (int)(x * 3.7f) + __float_as_int(x) % 1000;
}
