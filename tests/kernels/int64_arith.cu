// kernel: int64_arith
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i64[128] (init: random(64,-9000000000000000000,9000000000000000000)) ; b:in i64[128] (init: random(65,-4000000000,4000000000)) ; out:out u64[512] (init: zero) ; n: scalar i32 = 128
// what: 64-bit integer arithmetic: signed/unsigned div/rem (calls into the 64-bit division path), mul.lo/mul.hi, shifts across the 32-bit boundary, clzll/popcll/brevll, 32<->64 widening and narrowing.
extern "C" __global__ void int64_arith(const long long* a, const long long* b, unsigned long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i];
    long long y = b[i];
    long long d = (y == 0) ? 13 : y;
    unsigned long long ux = (unsigned long long)x, ud = (unsigned long long)d;
    unsigned long long* o = out + 4 * i;
    o[0] = (unsigned long long)(x / d) ^ (unsigned long long)(x % d) ^ (ux / ud) ^ (ux % ud);
    o[1] = ux * ud + (unsigned long long)__mul64hi(x, d) + __umul64hi(ux, ud);
    o[2] = (ux << (y & 63)) ^ (unsigned long long)(x >> ((y >> 6) & 63)) ^ (ux >> 33);
    o[3] = (unsigned long long)__clzll(x) + ((unsigned long long)__popcll(ux) << 8) + (__brevll(ux) & 0xffff0000ull)
         + (unsigned long long)(long long)(int)x + (unsigned long long)(unsigned)(x >> 20) * (unsigned long long)(int)y;
}
