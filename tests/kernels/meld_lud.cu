// kernel: meld_lud
// launch: grid=[4,1,1] block=[32,1,1] dynamic_shared=0
// params: dia:in u32[bs*bs] ; row:inout u32[grid*bs*bs] ; col:inout u32[grid*bs*bs] ; bs: scalar i32
// what: The perimeter step of a blocked LU decomposition (Rodinia lud_perimeter's shape, in 32-bit unsigned arithmetic): with the factored diagonal tile in shared memory, threads 0..bs-1 each solve one column of the row tile against the unit lower triangle, threads bs..2bs-1 each one row of the column tile against the upper triangle (with a division by the diagonal): two triangular update loops of one shape on different tiles. The .divergent spec (bs 16, 32 threads) splits the warp in halves; the .uniform spec (bs 32, 64 threads) gives each warp one side.
#define MAXB 32
extern "C" __global__ void meld_lud(const unsigned* dia, unsigned* row, unsigned* col, int bs)
{
    __shared__ unsigned sd[MAXB][MAXB];
    __shared__ unsigned sr[MAXB][MAXB];
    __shared__ unsigned sc[MAXB][MAXB];
    int t = threadIdx.x;
    int tile = blockIdx.x * bs * bs;
    for (int e = t; e < bs * bs; e += blockDim.x) {
        int i = e / bs, j = e % bs;
        sd[i][j] = dia[e];
        sr[i][j] = row[tile + e];
        sc[i][j] = col[tile + e];
    }
    __syncthreads();
    if (t < bs) {
        int c = t;
        for (int i = 1; i < bs; ++i)
            for (int j = 0; j < i; ++j)
                sr[i][c] -= sd[i][j] * sr[j][c];
    } else {
        int r = t - bs;
        for (int i = 0; i < bs; ++i) {
            for (int j = 0; j < i; ++j)
                sc[r][i] -= sc[r][j] * sd[j][i];
            sc[r][i] /= sd[i][i];
        }
    }
    __syncthreads();
    for (int e = t; e < bs * bs; e += blockDim.x) {
        int i = e / bs, j = e % bs;
        row[tile + e] = sr[i][j];
        col[tile + e] = sc[i][j];
    }
}
