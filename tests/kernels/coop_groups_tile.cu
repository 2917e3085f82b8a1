// kernel: coop_groups_tile
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(68,-100,100)) ; out:out i32[256] (init: zero) ; n: scalar i32 = 256
// what: cooperative_groups thread_block sync and tiled_partition<8> reductions (shfl_down within 8-lane tiles), tile.thread_rank()/meta_group_rank() and a tile-level any().
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void coop_groups_tile(const int* in, int* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    __shared__ int tile_sums[16];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int s = v;
    for (int off = tile.size() / 2; off > 0; off >>= 1)
        s += tile.shfl_down(s, off);
    bool neg = tile.any(v < -90);
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = s;
    block.sync();
    int other = tile_sums[(tile.meta_group_rank() + 1) % tile.meta_group_size()];
    if (i < n)
        out[i] = tile.shfl(s, 0) * 4 + other + (neg ? 1 : 0) + (int)tile.thread_rank();
}
