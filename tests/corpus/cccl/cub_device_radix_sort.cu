// Real-world CCCL instantiation: cub::DeviceRadixSort::SortPairs with uint32 keys and uint32 values.
#include <cub/device/device_radix_sort.cuh>
#include <cstdint>

void run_radix_sort_pairs(const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in, uint32_t* vals_out,
                          int n, void* d_tmp, size_t& tmp_bytes)
{
    cub::DeviceRadixSort::SortPairs(d_tmp, tmp_bytes, keys_in, keys_out, vals_in, vals_out, n);
}
