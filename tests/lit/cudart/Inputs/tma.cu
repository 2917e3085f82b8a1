// A tensor-map copy (cp.async.bulk.tensor.2d) through cuTensorMapEncodeTiled, reached with
// cudaGetDriverEntryPointByVersion: each CTA copies one 16 x 8 box of a 40 x 20 int matrix into
// shared memory (boxes past the right and bottom edges read zeros there) and writes it out; the
// host checks every element against the matrix.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

constexpr int W = 40, H = 20, BW = 16, BH = 8;

__global__ void copyBoxes(const __grid_constant__ CUtensorMap map, int* out)
{
    __shared__ __align__(128) int box[BH][BW];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(box));
    const int x = blockIdx.x * BW, y = blockIdx.y * BH;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(BW * BH * 4) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(dst), "l"(&map), "r"(x), "r"(y), "r"(b)
                     : "memory");
    }
    __syncthreads();
    asm volatile(
        "{\n.reg .pred done;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n@!done bra WAIT;\n}\n" ::"r"(b)
        : "memory");
    const int cta = blockIdx.y * gridDim.x + blockIdx.x;
    for (int i = threadIdx.x; i < BW * BH; i += blockDim.x) out[cta * BW * BH + i] = box[i / BW][i % BW];
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                                 const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main()
{
    int host[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) host[y][x] = 1000 * y + x;
    int* matrix;
    cudaMalloc(&matrix, sizeof host);
    cudaMemcpy(matrix, host, sizeof host, cudaMemcpyHostToDevice);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        std::printf("tma: no cuTensorMapEncodeTiled\n");
        return 1;
    }
    CUtensorMap map;
    const cuuint64_t dims[2] = {W, H}, strides[1] = {W * sizeof(int)};
    const cuuint32_t boxDims[2] = {BW, BH}, elementStrides[2] = {1, 1};
    CUresult e = reinterpret_cast<EncodeTiled>(fn)(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, matrix, dims, strides, boxDims,
                                                   elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (e != CUDA_SUCCESS) {
        std::printf("tma: cuTensorMapEncodeTiled failed (%d)\n", static_cast<int>(e));
        return 1;
    }
    const dim3 grid((W + BW - 1) / BW, (H + BH - 1) / BH);
    const int n = grid.x * grid.y * BW * BH;
    int* out;
    cudaMalloc(&out, n * sizeof(int));
    copyBoxes<<<grid, 64>>>(map, out);
    int* back = new int[n];
    cudaMemcpy(back, out, n * sizeof(int), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx)
            for (int i = 0; i < BW * BH; ++i) {
                const int x = bx * BW + i % BW, y = by * BH + i / BW;
                const int want = x < W && y < H ? host[y][x] : 0;
                wrong += back[(by * grid.x + bx) * BW * BH + i] != want;
            }
    // A 128-byte swizzle of 64-byte box rows is not emulated: the call says so.
    CUtensorMap swizzled;
    e = reinterpret_cast<EncodeTiled>(fn)(&swizzled, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, matrix, dims, strides, boxDims,
                                          elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                          CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    std::printf("tma: swizzle %s\n", e == CUDA_ERROR_NOT_SUPPORTED ? "not supported" : "supported");
    std::printf("tma: %s (%d wrong of %d)\n", wrong ? "FAILED" : "PASSED", wrong, n);
    delete[] back;
    return wrong != 0;
}
