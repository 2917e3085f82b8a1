// kernel: multi_dim_block
// launch: grid=[2,3,1] block=[8,4,2] dynamic_shared=0
// params: in:in i32[384] (init: random(56,-100,100)) ; out:out i32[384] (init: zero) ; w: scalar i32 = 16 ; h: scalar i32 = 12 ; d: scalar i32 = 2
// what: 3D thread blocks and a 2D grid: global (x,y,z) coordinates from threadIdx.x/y/z, blockIdx.x/y and blockDim.*; each cell sums its in-bounds x/y neighbours in a w*h*d volume.
extern "C" __global__ void multi_dim_block(const int* in, int* out, int w, int h, int d)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = threadIdx.z;
    if (x >= w || y >= h || z >= d)
        return;
    int idx = (z * h + y) * w + x;
    int s = in[idx] * 4;
    if (x > 0)     s += in[idx - 1];
    if (x + 1 < w) s += in[idx + 1];
    if (y > 0)     s += in[idx - w];
    if (y + 1 < h) s += in[idx + w];
    int tlin = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    out[idx] = s * 1000 + tlin + (int)(blockIdx.y * gridDim.x + blockIdx.x) * 100;
}
