// kernel: local_array
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(23,0,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A per-thread 24-element array indexed with data-dependent indices (so it lives in .local memory), filled, permuted and read back.
extern "C" __global__ void local_array(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int arr[24];
    int seed = in[i];
    for (int k = 0; k < 24; ++k)
        arr[k] = seed * (k + 1) + k;
    for (int k = 0; k < 24; ++k) {
        int j = (seed + k * 7) % 24;          // dynamic index
        int t = arr[k];
        arr[k] = arr[j];
        arr[j] = t + 1;
    }
    int idx = in[(i + 1) % n] % 24;
    out[i] = arr[idx] - arr[(idx + 5) % 24];
}
