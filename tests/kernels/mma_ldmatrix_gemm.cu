// kernel: mma_ldmatrix_gemm
// launch: grid=[2,2,1] block=[64,1,1] dynamic_shared=0
// params: a:in f16[2048] (A, 32x64 row-major, small integers) ; bt:in f16[2048] (B as its transpose, 32x64 row-major) ; d:out f32[1024] (D = A B, 32x32 row-major) ; M,N,K: scalar i32 = 32,32,64
// what: a GEMM as hand-written tensor-core code does it (inline PTX): each CTA stages a 16x16
// tile of A and a 16x16 tile of B^T in shared memory per K step, ldmatrix.x4 loads A's fragment
// and ldmatrix.x2 B's (the .col operand: rows of B^T), mma.sync.m16n8k16 accumulates in f32;
// warp w takes output columns 8w..8w+7 of the CTA's 16x16 tile. Before sm_80 (no m16n8k16) each
// lane computes the same accumulator fragment with fma in k order.
// barriers: #1 needed (ldmatrix reads rows other threads stored). #2 needed (the next K step
// overwrites the tiles).
#include <cuda_fp16.h>
#define TILE 16

extern "C" __global__ void mma_ldmatrix_gemm(const __half* a, const __half* bt, float* d, int M, int N, int K)
{
    __shared__ __align__(16) __half sa[TILE * TILE];
    __shared__ __align__(16) __half sb[TILE * TILE];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int g = lane / 4, q = lane % 4;  // the fragment's groupID and threadID_in_group
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < K; k += TILE) {
        // 64 threads, 4 halves of each tile apiece: A's (16 rows of 16), and B^T's.
        for (int i = t * 4; i < TILE * TILE; i += 64 * 4) {
            const int r = i / TILE, c = i % TILE;
            for (int j = 0; j < 4; ++j) {
                sa[i + j] = a[(row0 + r) * K + k + c + j];
                sb[i + j] = bt[(col0 + r) * K + k + c + j];
            }
        }
        __syncthreads();  // #1 needed
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        unsigned fa[4], fb[2];
        const unsigned aRow = static_cast<unsigned>(__cvta_generic_to_shared(&sa[(lane % 16) * TILE + (lane / 16) * 8]));
        const unsigned bRow = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(warp * 8 + lane % 8) * TILE + ((lane / 8) % 2) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(fa[0]), "=r"(fa[1]), "=r"(fa[2]), "=r"(fa[3]) : "r"(aRow));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(fb[0]), "=r"(fb[1]) : "r"(bRow));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                     "{%0, %1, %2, %3};\n"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
#else
        for (int i = 0; i < 4; ++i) {
            const int r = g + (i / 2) * 8, c = warp * 8 + q * 2 + i % 2;
            for (int p = 0; p < TILE; ++p) acc[i] = __fmaf_rn(__half2float(sa[r * TILE + p]), __half2float(sb[c * TILE + p]), acc[i]);
        }
#endif
        __syncthreads();  // #2 needed
    }
    // The accumulator fragment: c0, c1 at row g, columns 2q and 2q+1; c2, c3 eight rows down.
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + g + (i / 2) * 8, c = col0 + warp * 8 + q * 2 + i % 2;
        if (r < M && c < N) d[r * N + c] = acc[i];
    }
}
