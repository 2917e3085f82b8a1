// Real-world CCCL instantiation: cub::DeviceReduce::Sum / Max on float.
// Compiled device-only (nvcc -arch=sm_90 -ptx); host wrappers force the kernel templates to be instantiated.
#include <cub/device/device_reduce.cuh>

void run_reduce_sum(const float* d_in, float* d_out, int n, void* d_tmp, size_t& tmp_bytes)
{
    cub::DeviceReduce::Sum(d_tmp, tmp_bytes, d_in, d_out, n);
}

void run_reduce_max(const float* d_in, float* d_out, int n, void* d_tmp, size_t& tmp_bytes)
{
    cub::DeviceReduce::Max(d_tmp, tmp_bytes, d_in, d_out, n);
}
