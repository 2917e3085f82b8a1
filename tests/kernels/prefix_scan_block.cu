// kernel: prefix_scan_block
// launch: grid=[2,1,1] block=[256,1,1] dynamic_shared=0
// params: in:in i32[512] (init: random(31,-50,50)) ; out:out i32[512] (init: zero) ; sums:out i32[2] (init: zero) ; n: scalar i32 = 500
// what: Work-efficient (Blelloch) exclusive scan of one 256-element tile per block in shared memory: up-sweep, clear, down-sweep, with __syncthreads between every level.
#define N 256
extern "C" __global__ void prefix_scan_block(const int* in, int* out, int* sums, int n)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    int g = blockIdx.x * N + t;
    s[t] = (g < n) ? in[g] : 0;
    __syncthreads();
    for (int d = 1; d < N; d <<= 1) {            // up-sweep
        int idx = (t + 1) * d * 2 - 1;
        if (idx < N)
            s[idx] += s[idx - d];
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = s[N - 1];
        s[N - 1] = 0;
    }
    __syncthreads();
    for (int d = N / 2; d >= 1; d >>= 1) {       // down-sweep
        int idx = (t + 1) * d * 2 - 1;
        if (idx < N) {
            int tmp = s[idx - d];
            s[idx - d] = s[idx];
            s[idx] += tmp;
        }
        __syncthreads();
    }
    if (g < n)
        out[g] = s[t];
}
