// kernel: unsigned_compare
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in u32[128] (init: random(58,0,4294967295)) ; b:in u32[128] (init: random(59,0,4294967295)) ; out:out u32[128] (init: zero) ; n: scalar i32 = 128
// what: Unsigned vs signed comparisons on values with the top bit set (setp.lo/hi/ls/hs vs lt/gt), 64-bit unsigned compares, and unsigned loop/bounds comparisons; results packed into a bitmask.
extern "C" __global__ void unsigned_compare(const unsigned* a, const unsigned* b, unsigned* out, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (unsigned)n)
        return;
    unsigned x = a[i], y = b[i];
    int sx = (int)x, sy = (int)y;
    unsigned long long wx = (unsigned long long)x << 31, wy = (unsigned long long)y * 3ull;
    unsigned r = 0;
    r |= (x < y) << 0;
    r |= (x <= y) << 1;
    r |= (x > y) << 2;
    r |= (x >= y) << 3;
    r |= (sx < sy) << 4;
    r |= (sx >= sy) << 5;
    r |= (x > 0x80000000u) << 6;
    r |= (sx < -5) << 7;
    r |= (wx < wy) << 8;
    r |= ((long long)wx > (long long)(wy - 0x100000000ull)) << 9;
    r |= (x - y < 1000u) << 10;            // wraparound difference
    r |= (x + y < x) << 11;                // carry out
    unsigned cnt = 0;
    for (unsigned k = x >> 28; k < 16u; ++k)
        ++cnt;
    if (x > y)
        r += (x - y) & 0xfff00000u;
    else
        r += (y - x) & 0x0ff00000u;
    out[i] = r + (cnt << 12);
}
