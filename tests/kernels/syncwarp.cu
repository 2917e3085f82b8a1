// kernel: syncwarp
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(19,-100,100)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Warp-level exchange through shared memory ordered only by __syncwarp (no block barrier): each lane reads its neighbours' values, then a second round reads the updated array.
#define BLOCK 64
extern "C" __global__ void syncwarp(const int* in, int* out, int n)
{
    __shared__ int buf[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned tid = threadIdx.x;
    unsigned warp_base = tid & ~31u;
    unsigned lane = tid & 31u;
    buf[tid] = (i < n) ? in[i] : 0;
    __syncwarp();
    int left = buf[warp_base + ((lane + 31) & 31)];
    int right = buf[warp_base + ((lane + 1) & 31)];
    __syncwarp();
    buf[tid] = left - right + buf[tid] * 2;
    __syncwarp();
    int r = buf[warp_base + (31 - lane)];
    if (i < n)
        out[i] = r;
}
