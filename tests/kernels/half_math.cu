// kernel: half_math
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in f16[128] (init: random(46,-8,8)) ; b:in f16[128] (init: random(47,0.5,4)) ; out:out f16[384] (init: zero) ; fout:out f32[128] (init: zero) ; iout:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: __half scalar and __half2 vector arithmetic from cuda_fp16.h (add/sub/mul/fma/div, comparisons, hmax/hmin) plus conversions float<->half (rn/rz), int<->half and half->float.
#include <cuda_fp16.h>
extern "C" __global__ void half_math(const __half* a, const __half* b, __half* out, float* fout, int* iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half x = a[i];
    __half y = b[i];                      // y >= 0.5
    __half s = __hadd(x, y);
    __half m = __hmul(x, y);
    __half f = __hfma(x, y, __float2half_rn(0.25f));
    __half d = __hdiv(x, y);
    __half c = __hlt(x, y) ? __hsub(y, x) : __hneg(x);
    out[i * 3 + 0] = __hadd(__hmax(s, m), __hmin(f, d));
    out[i * 3 + 1] = __hadd(c, __int2half_rn(i - 64));
    __half2 v = __halves2half2(x, y);
    __half2 w = __hfma2(v, __floats2half2_rn(0.5f, -2.0f), __half2half2(__float2half_rz(1.1f)));
    w = __hmul2(w, __hadd2(v, w));
    out[i * 3 + 2] = __hadd(__low2half(w), __high2half(w));
    fout[i] = __half2float(m) + __low2float(w) + __half2float(__float2half_rz(__half2float(x) * 3.3f));
    iout[i] = __half2int_rz(__hmul(x, __float2half_rn(10.0f))) * 100 + __half2int_rn(d) + (__heq(x, y) ? 1 : 0) + (__hge(s, m) ? 2 : 0);
}
