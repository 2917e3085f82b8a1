// kernel: wmma_gemm
// launch: grid=[3,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in f16[1024] (A, 32x32 row-major, small integers) ; b:in f16[1536] (B, 32x48 column-major) ; c:in f32[1536] (C, 32x48 row-major) ; d:out f32[1536] (D = A B + C, row-major) ; M,N,K: scalar i32 = 32,48,32
// what: a GEMM through nvcuda::wmma (<mma.h>): each warp computes one 16x16 tile of D, its
// accumulator loaded from C (row-major), A tiles row-major, B tiles column-major, K in steps of 16
// (wmma.load, wmma.mma, wmma.store: tensor cores, sm_70 and later). Warp w of CTA x takes tile
// row w, tile column x.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const __half* a, const __half* b, const float* c, float* d, int M, int N, int K)
{
    const int tileRow = threadIdx.x / 32, tileCol = blockIdx.x;
    if (tileRow * 16 >= M || tileCol * 16 >= N) return;  // uniform per warp
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tileRow * 16 * N + tileCol * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
        wmma::load_matrix_sync(fa, a + tileRow * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tileCol * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tileRow * 16 * N + tileCol * 16, acc, N, wmma::mem_row_major);
}
