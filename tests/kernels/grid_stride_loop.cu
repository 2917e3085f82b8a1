// kernel: grid_stride_loop
// launch: grid=[3,1,1] block=[64,1,1] dynamic_shared=0
// params: x:in f32[1000] (init: random(37,-10,10)) ; y:inout f32[1000] (init: random(38,-10,10)) ; a: scalar f32 = 0.75 ; n: scalar i32 = 1000
// what: Grid-stride loop (i += gridDim.x*blockDim.x) covering more elements than threads, with an uneven tail; each element gets an FMA update.
extern "C" __global__ void grid_stride_loop(const float* x, float* y, float a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = fmaf(a, x[i], y[i]) - 0.5f * x[(i + 1) % n];
}
