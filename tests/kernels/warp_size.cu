// kernel: warp_size
// launch: grid=[2,1,1] block=[96,1,1] dynamic_shared=0
// params: in:in i32[200] (init: random(31,-50,50)) ; out:out i32[192] (init: zero) ; n: scalar i32 = 200
// what: warpSize, which nvcc writes as the predefined PTX constant WARP_SZ: warp and lane numbers, and each lane summing a warp-strided slice of the input.
extern "C" __global__ void warp_size(const int* in, int* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x / warpSize;
    int lane = threadIdx.x % warpSize;
    int sum = 0;
    for (int k = lane + warp; k < n; k += warpSize)
        sum += in[k] * (k % 3 - 1);
    out[t] = sum * 1000 + warp * warpSize + lane;
}
