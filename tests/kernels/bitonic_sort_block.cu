// kernel: bitonic_sort_block
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: keys:inout i32[256] (init: random(32,-10000,10000)) ; n: scalar i32 = 250
// what: In-block bitonic sort of 128 keys in shared memory (padding with INT_MAX past n); nested stage loops with a data-dependent compare-and-swap and __syncthreads every step.
#define N 128
extern "C" __global__ void bitonic_sort_block(int* keys, int n)
{
    __shared__ int s[N];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * N + t;
    s[t] = (g < n) ? keys[g] : 0x7fffffff;
    __syncthreads();
    for (unsigned k = 2; k <= N; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                int a = s[t];
                int b = s[p];
                bool ascending = (t & k) == 0;
                if ((a > b) == ascending) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    if (g < n)
        keys[g] = s[t];
}
