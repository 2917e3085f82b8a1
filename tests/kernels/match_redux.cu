// kernel: match_redux
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(48,0,5)) ; out:out u32[256] (init: zero) ; n: scalar i32 = 128
// what: __match_any_sync / __match_all_sync (sm_70+) group lanes with equal keys; __reduce_add_sync / __reduce_max_sync / __reduce_or_sync (redux.sync, sm_80+) with a shuffle-based fallback below sm_80.
extern "C" __global__ void match_redux(const int* in, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned key = (i < n) ? (unsigned)in[i] : 99u;      // all lanes stay active
    unsigned peers = __match_any_sync(0xffffffffu, key);
    int all_pred = 0;
    unsigned uniform_key = (threadIdx.x < 32u) ? 7u : key;   // warp 0: all equal; other warps: mixed
    unsigned all_mask = __match_all_sync(0xffffffffu, uniform_key, &all_pred);
    unsigned v = key * 10u + (threadIdx.x & 31u);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned sum = __reduce_add_sync(0xffffffffu, v);
    unsigned mx = __reduce_max_sync(0xffffffffu, v);
    unsigned orr = __reduce_or_sync(0xffffffffu, 1u << (key & 31u));
#else
    unsigned sum = v, mx = v, orr = 1u << (key & 31u);
    for (int m = 16; m > 0; m >>= 1) {
        sum += __shfl_xor_sync(0xffffffffu, sum, m);
        mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, m));
        orr |= __shfl_xor_sync(0xffffffffu, orr, m);
    }
#endif
    if (i < n) {
        out[2 * i] = peers ^ (all_pred ? all_mask : 0u);
        out[2 * i + 1] = sum + (mx << 16) + (orr << 24) + (unsigned)__popc(peers);
    }
}
