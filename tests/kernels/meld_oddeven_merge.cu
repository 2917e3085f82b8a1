// kernel: meld_oddeven_merge
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: keys:inout i32[256] ; layout: scalar i32
// what: Odd-even transposition sort (the merge-exchange steps of PCM-like sorts) of 128 keys per CTA in shared memory, one element per thread, 128 phases: in each phase a thread is either the left element of its pair (compare-exchange with the element at +1, keep the smaller) or the right one (with the element at -1, keep the larger), two sides of one shape at different offsets. layout 0 (.divergent) gives thread t element t, so the sides alternate lane by lane; layout 1 (.uniform) gives one warp of each pair of warps the even elements and the other the odd ones, so each side is warp-uniform.
#define N 128
extern "C" __global__ void meld_oddeven_merge(int* keys, int layout)
{
    __shared__ int s[N];
    unsigned t = threadIdx.x;
    unsigned e = layout ? ((t & ~63u) | ((t & 31u) << 1) | ((t >> 5) & 1u)) : t;
    int* k = keys + blockIdx.x * N;
    s[e] = k[e];
    __syncthreads();
    for (unsigned ph = 0; ph < N; ++ph) {
        int v = s[e];
        if (((e ^ ph) & 1) == 0) {
            if (e + 1 < N) {
                int b = s[e + 1];
                v = (b < v) ? b : v;
            }
        } else {
            if (e >= 1) {
                int a = s[e - 1];
                v = (a > v) ? a : v;
            }
        }
        __syncthreads();
        s[e] = v;
        __syncthreads();
    }
    k[e] = s[e];
}
