// Real-world CCCL instantiation: cub::DeviceHistogram::HistogramEven on float samples, int counters.
#include <cub/device/device_histogram.cuh>

void run_histogram_even(const float* d_samples, int* d_hist, int n, void* d_tmp, size_t& tmp_bytes)
{
    const int num_levels = 65;   // 64 bins
    cub::DeviceHistogram::HistogramEven(d_tmp, tmp_bytes, d_samples, d_hist, num_levels, 0.0f, 256.0f, n);
}
