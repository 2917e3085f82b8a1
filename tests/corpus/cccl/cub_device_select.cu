// Real-world CCCL instantiation: cub::DeviceSelect::If with a user functor on int.
#include <cub/device/device_select.cuh>

struct IsEvenAndPositive {
    __host__ __device__ bool operator()(const int& x) const { return x > 0 && (x & 1) == 0; }
};

void run_select_if(const int* d_in, int* d_out, int* d_num_selected, int n, void* d_tmp, size_t& tmp_bytes)
{
    cub::DeviceSelect::If(d_tmp, tmp_bytes, d_in, d_out, d_num_selected, n, IsEvenAndPositive{});
}
