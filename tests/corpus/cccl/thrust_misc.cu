// Real-world CCCL instantiation: thrust::transform_reduce, thrust::inclusive_scan and thrust::copy_if.
#include <thrust/transform_reduce.h>
#include <thrust/scan.h>
#include <thrust/copy.h>
#include <thrust/functional.h>
#include <thrust/execution_policy.h>

struct Square {
    __host__ __device__ float operator()(float x) const { return x * x; }
};

struct IsMultipleOf3 {
    __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};

float run_sum_of_squares(const float* d, int n)
{
    return thrust::transform_reduce(thrust::device, d, d + n, Square(), 0.0f, thrust::plus<float>());
}

void run_inclusive_scan(const int* in, int* out, int n)
{
    thrust::inclusive_scan(thrust::device, in, in + n, out);
}

int run_copy_if(const int* in, int* out, int n)
{
    int* end = thrust::copy_if(thrust::device, in, in + n, out, IsMultipleOf3());
    return (int)(end - out);
}
