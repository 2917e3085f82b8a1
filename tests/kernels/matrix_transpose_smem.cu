// kernel: matrix_transpose_smem
// launch: grid=[2,2,1] block=[32,8,1] dynamic_shared=0
// params: in:in f32[4096] (init: random(29,-100,100)) ; out:out f32[4096] (init: zero) ; width: scalar i32 = 64 ; height: scalar i32 = 64
// what: Tiled 32x32 matrix transpose through a padded (33-column) __shared__ tile with a 2D block, each thread handling 4 rows; one __syncthreads between load and store phases.
#define TILE 32
#define ROWS 8
extern "C" __global__ void matrix_transpose_smem(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
