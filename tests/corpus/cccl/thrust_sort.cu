// Real-world CCCL instantiation: thrust::sort on float with thrust::greater (radix-sort path), thrust::sort_by_key
// (uint32 keys, float values) and thrust::stable_sort with a user comparator (merge-sort path).
#include <thrust/sort.h>
#include <thrust/functional.h>
#include <thrust/execution_policy.h>
#include <cstdint>

struct AbsLess {
    __host__ __device__ bool operator()(int a, int b) const
    {
        int ua = a < 0 ? -a : a;
        int ub = b < 0 ? -b : b;
        return ua < ub;
    }
};

void run_sort_desc(float* d, int n)
{
    thrust::sort(thrust::device, d, d + n, thrust::greater<float>());
}

void run_sort_by_key(uint32_t* keys, float* vals, int n)
{
    thrust::sort_by_key(thrust::device, keys, keys + n, vals);
}

void run_stable_sort_custom(int* d, int n)
{
    thrust::stable_sort(thrust::device, d, d + n, AbsLess());
}
