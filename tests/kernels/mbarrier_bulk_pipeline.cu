// kernel: mbarrier_bulk_pipeline
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[1536] (init: random(90,-1000,1000)) ; out:out i32[256] (init: zero) ; tiles: scalar i32 = 6
// what: A double-buffered pipeline of bulk asynchronous copies (sm_90): one lane of warp 0,
// chosen by elect.sync, issues each 512-byte tile with mbarrier.arrive.expect_tx and
// cp.async.bulk on the buffer's "full" mbarrier; every thread waits for the tile with
// mbarrier.try_wait.parity, reads its word and arrives on the buffer's "empty" mbarrier, on which
// the issuing thread waits before it copies the tile two steps later into the same buffer. No
// __syncthreads in the loop: the mbarriers order everything. sm_75 has neither: plain copies and
// barriers compute the same.
#define BLOCK 128
#define TILE 128  // ints per tile: 512 bytes, one bulk copy

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void mbarInit(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbarArrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void mbarWait(unsigned bar, unsigned parity)
{
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

__device__ __forceinline__ bool electOne()
{
    unsigned elected;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "elect.sync _|p, 0xffffffff;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(elected));
    return elected != 0;
}

// Tile k of `src` into `dst`: expect its bytes on `full`, then the bulk copy that completes them.
__device__ __forceinline__ void issueTile(unsigned dst, const int* src, unsigned full)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full), "r"(TILE * 4) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(TILE * 4), "r"(full)
                 : "memory");
}
#endif

extern "C" __global__ void mbarrier_bulk_pipeline(const int* in, int* out, int tiles)
{
    __shared__ __align__(128) int buf[2][TILE];
    const unsigned t = threadIdx.x;
    const int* src = in + blockIdx.x * tiles * TILE;
    int acc = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(8) unsigned long long full[2], empty[2];
    if (t == 0) {
        for (int b = 0; b < 2; ++b) {
            mbarInit(smem(&full[b]), 1);
            mbarInit(smem(&empty[b]), BLOCK);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const bool issuer = t < 32 && electOne();
    if (issuer)
        for (int k = 0; k < 2 && k < tiles; ++k) issueTile(smem(buf[k]), src + k * TILE, smem(&full[k]));
    for (int k = 0; k < tiles; ++k) {
        const int b = k & 1;
        const unsigned parity = (k >> 1) & 1;  // the j-th use of a buffer waits for phase j
        mbarWait(smem(&full[b]), parity);
        acc += buf[b][(t * 5 + k) % TILE] * (k + 1);
        mbarArrive(smem(&empty[b]));
        if (issuer && k + 2 < tiles) {
            mbarWait(smem(&empty[b]), parity);  // every thread has read tile k
            issueTile(smem(buf[b]), src + (k + 2) * TILE, smem(&full[b]));
        }
    }
#else
    for (int k = 0; k < tiles; ++k) {
        buf[k & 1][t] = src[k * TILE + t];
        __syncthreads();
        acc += buf[k & 1][(t * 5 + k) % TILE] * (k + 1);
    }
#endif
    out[blockIdx.x * BLOCK + t] = acc;
}
