// Real-world CCCL instantiation: cub::DeviceScan::ExclusiveSum (and InclusiveSum) on int.
#include <cub/device/device_scan.cuh>

void run_exclusive_sum(const int* d_in, int* d_out, int n, void* d_tmp, size_t& tmp_bytes)
{
    cub::DeviceScan::ExclusiveSum(d_tmp, tmp_bytes, d_in, d_out, n);
}

void run_inclusive_sum(const int* d_in, int* d_out, int n, void* d_tmp, size_t& tmp_bytes)
{
    cub::DeviceScan::InclusiveSum(d_tmp, tmp_bytes, d_in, d_out, n);
}
