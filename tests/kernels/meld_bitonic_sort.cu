// kernel: meld_bitonic_sort
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: keys:inout i32[256] ; kmin: scalar u32
// what: DARM's bitonic sort shape: in-block bitonic network over 128 keys in shared memory from stage kmin on, the compare-exchange written as two sides of one shape, `if (ascending) { if (a > b) swap } else { if (a < b) swap }`, with __syncthreads every step. The .divergent spec (random keys, kmin 2: a full sort) has stages below 32 whose direction differs within warps; the .uniform spec (kmin 64, keys already in sorted runs of 32 of alternating direction) only runs the warp-uniform stages 64 and 128.
#define N 128
extern "C" __global__ void meld_bitonic_sort(int* keys, unsigned kmin)
{
    __shared__ int s[N];
    unsigned t = threadIdx.x;
    int* k = keys + blockIdx.x * N;
    s[t] = k[t];
    __syncthreads();
    for (unsigned size = kmin; size <= N; size <<= 1) {
        for (unsigned j = size >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                if ((t & size) == 0) {
                    if (s[t] > s[p]) {
                        int x = s[t];
                        s[t] = s[p];
                        s[p] = x;
                    }
                } else {
                    if (s[t] < s[p]) {
                        int x = s[t];
                        s[t] = s[p];
                        s[p] = x;
                    }
                }
            }
            __syncthreads();
        }
    }
    k[t] = s[t];
}
