// kernel: sync_tiled_loop
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: x:in i32[512] (init: random(406,-100,100)) ; out:out i32[256] (init: zero) ; tiles: scalar i32 = 4
// what: The classic tiled loop: per iteration the CTA stages 128 elements of x in a __shared__ tile, waits, every thread runs over the whole tile with its own weights, and waits again before the next tile overwrites it.
// barriers: #1 needed (read after write: each thread reads all 128 tile slots, written by the
// whole CTA). #2 needed (write after read across the back edge: the next iteration's fill of
// tile[t] must wait until every thread has finished reading the current tile).
#define BLOCK 128
extern "C" __global__ void sync_tiled_loop(const int* x, int* out, int tiles)
{
    __shared__ int tile[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    int acc = 0;
    for (int k = 0; k < tiles; ++k) {
        tile[t] = x[k * BLOCK + t];
        __syncthreads();                                            // #1 needed
        for (int j = 0; j < BLOCK; ++j)
            acc += tile[j] * (((g ^ (k * BLOCK + j)) & 7) - 3);
        __syncthreads();                                            // #2 needed
    }
    out[g] = acc;
}
