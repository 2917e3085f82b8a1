// kernel: unrolled_nested_loops
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in f32[256] (init: random(69,-4,4)) ; b:in f32[256] (init: random(70,-4,4)) ; out:out f32[128] (init: zero) ; n: scalar i32 = 128 ; k: scalar i32 = 13
// what: Nested loops with #pragma unroll 4 on a runtime trip count (unrolled body plus remainder loop) and a fully unrolled constant inner loop; small dot-products with FMA chains.
extern "C" __global__ void unrolled_nested_loops(const float* a, const float* b, float* out, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll 4
    for (int j = 0; j < k; ++j) {
        float t = a[(i + j) & 255];
#pragma unroll
        for (int m = 0; m < 3; ++m)
            t = fmaf(t, b[(i * 3 + m + j) & 255], 0.5f * (float)m);
        acc += t;
    }
    out[i] = acc;
}
