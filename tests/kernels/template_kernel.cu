// kernel: _Z11axpy_strideIfLi2EEvPKT_PS0_S0_i
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: x:in f32[128] (init: random(25,-8,8)) ; y:inout f32[128] (init: random(26,-8,8)) ; a: scalar f32 = 1.5 ; n: scalar i32 = 128
// what: Template axpy-with-stride kernel, float instantiation with K=2: y[i] = a*x[i] + y[i] + x[(i+K)%n]; exercises mangled template entry names.
// kernel: _Z11axpy_strideIiLi5EEvPKT_PS0_S0_i
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: x:in i32[128] (init: random(27,-100,100)) ; y:inout i32[128] (init: random(28,-100,100)) ; a: scalar i32 = 3 ; n: scalar i32 = 128
// what: Same template, int instantiation with K=5 (integer multiply-add path instead of FMA).
template <typename T, int K>
__global__ void axpy_stride(const T* x, T* y, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i] + x[(i + K) % n];
}

template __global__ void axpy_stride<float, 2>(const float*, float*, float, int);
template __global__ void axpy_stride<int, 5>(const int*, int*, int, int);
