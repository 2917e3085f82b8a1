// kernel: double_math
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in f64[128] (init: random(44,-1000,1000)) ; b:in f64[128] (init: random(45,0.25,100)) ; out:out f64[512] (init: zero) ; iout:out i64[256] (init: zero) ; n: scalar i32 = 128
// what: Float64 ops: IEEE sqrt/div, fma, fmin/fmax/fabs, floor/ceil/trunc, copysign, double<->float and double<->int/long long conversions with rounding intrinsics (__double2int_rn, __double2ll_rz, __ll2double_rn, __double2float_rn).
extern "C" __global__ void double_math(const double* a, const double* b, double* out, long long* iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i];
    double y = b[i];                      // y > 0
    double* o = out + i * 4;
    long long* q = iout + i * 2;
    o[0] = sqrt(y) + x / y + __dsqrt_rn(y * 3.0);
    o[1] = fma(x, y, -0.125) + fmin(x, y) * fmax(x, -y) - fabs(x) + __dmul_rd(x, 1.0 / 3.0);
    o[2] = floor(x / 7.0) + ceil(x * 0.3) + trunc(x / 11.0) + copysign(y, x) + rint(x * 0.5);
    o[3] = (double)__double2float_rn(x / 3.0) + __ll2double_rn((long long)i << 40) + (double)(float)y + __int2double_rn(i * -77);
    q[0] = (long long)__double2int_rn(x * 2.5) + __double2ll_rz(x * 1e9) + __double2ll_rd(x * 0.7);
    q[1] = (long long)__double_as_longlong(x) ^ (long long)__double2uint_ru(y * 10.0) ^ (long long)x;
}
