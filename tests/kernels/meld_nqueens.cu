// kernel: meld_nqueens
// launch: grid=[1,1,1] block=[64,1,1] dynamic_shared=0
// params: prefix:in i32[64] ; count:out i32[64] (init: zero) ; n: scalar i32 = 8
// what: N-Queens counting: thread g places the queens of rows 0 and 1 at columns prefix[g] / n and prefix[g] % n and counts the completions with an explicit-stack backtracking loop over bit masks (a per-thread stack in local memory); each step either places the lowest free column and pushes or pops, a data-dependent branch. The .divergent spec gives every lane another prefix (0..63, n 8); the .uniform spec gives all lanes of a warp the same prefix, so every branch is warp-uniform.
#define MAXN 12
extern "C" __global__ void meld_nqueens(const int* prefix, int* count, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int c0 = prefix[g] / n, c1 = prefix[g] % n;
    unsigned full = (1u << n) - 1;
    unsigned b0 = 1u << c0, b1 = 1u << c1;
    unsigned cols = b0, ld = b0 << 1, rd = b0 >> 1;
    int found = 0;
    if (!(b1 & (cols | ld | rd))) {
        unsigned sc[MAXN], sl[MAXN], sr[MAXN], avail[MAXN];
        int d = 2;
        sc[d] = cols | b1;
        sl[d] = (ld | b1) << 1;
        sr[d] = (rd | b1) >> 1;
        avail[d] = full & ~(sc[d] | sl[d] | sr[d]);
        while (d >= 2) {
            unsigned a = avail[d];
            if (a) {
                unsigned bit = a & (0u - a);
                avail[d] = a ^ bit;
                if (d + 1 == n) {
                    ++found;
                } else {
                    sc[d + 1] = sc[d] | bit;
                    sl[d + 1] = (sl[d] | bit) << 1;
                    sr[d + 1] = (sr[d] | bit) >> 1;
                    ++d;
                    avail[d] = full & ~(sc[d] | sl[d] | sr[d]);
                }
            } else {
                --d;
            }
        }
    }
    count[g] = found;
}
