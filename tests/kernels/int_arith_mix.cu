// kernel: int_arith_mix
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(40,-2000000000,2000000000)) ; b:in i32[128] (init: random(41,-100000,100000)) ; out:out u32[1024] (init: zero) ; n: scalar i32 = 128
// what: Integer ALU coverage: signed/unsigned div and rem (by variable and constant), mulhi/umulhi/mul64hi, min/max/abs, shifts, popc/clz/ffs/brev, byte_perm, funnel shift, sad, and bfe/bfi via inline PTX; 8 results per thread.
__device__ __forceinline__ unsigned bfe_u32(unsigned x, unsigned pos, unsigned len)
{
    unsigned r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ int bfe_s32(int x, unsigned pos, unsigned len)
{
    int r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
    return r;
}
__device__ __forceinline__ unsigned bfi_b32(unsigned ins, unsigned base, unsigned pos, unsigned len)
{
    unsigned r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(ins), "r"(base), "r"(pos), "r"(len));
    return r;
}

extern "C" __global__ void int_arith_mix(const int* a, const int* b, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    int y = b[i];
    int d = (y == 0) ? 7 : y;                  // never divide by zero
    unsigned ux = (unsigned)x, ud = (unsigned)d;
    unsigned* o = out + i * 8;
    o[0] = (unsigned)(x / d) ^ (unsigned)(x % d) ^ (ux / ud) ^ (ux % ud);
    o[1] = (unsigned)(x / 7) + (unsigned)(x % 10) + ux / 3u + (ux % 1000u);
    o[2] = (unsigned)__mulhi(x, y) ^ __umulhi(ux, (unsigned)y) ^ (unsigned)__mul64hi((long long)x * 3, (long long)y);
    o[3] = (unsigned)(min(x, y) - max(x, y)) + (unsigned)abs(y) + min(ux, ud) + (unsigned)max(-y, 3);
    o[4] = (ux >> (y & 31)) ^ (unsigned)(x >> ((y >> 3) & 31)) ^ (ux << (y & 15));
    o[5] = (unsigned)__popc(ux) | ((unsigned)__clz(x) << 8) | ((unsigned)__ffs(y) << 16) | ((unsigned)__popcll((long long)x * y) << 24);
    o[6] = __brev(ux) ^ __byte_perm(ux, (unsigned)y, 0x4721u) ^ __funnelshift_l(ux, (unsigned)y, (unsigned)y) ^ __funnelshift_r(ux, (unsigned)y, 5u) ^ __sad(x, y, 3u);
    o[7] = bfe_u32(ux, (unsigned)y & 31u, 9u) + (unsigned)bfe_s32(x, 3u, ((unsigned)y >> 5) & 31u) + bfi_b32((unsigned)y, ux, 4u, 12u) + __usad(ux, (unsigned)y, 1u);
}
