// multi_a.cu and multi_b.cu: multi_b.cu's host functions, and the error check both use.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                                     \
  do {                                                                                                       \
    cudaError_t err_ = (call);                                                                               \
    if (err_ != cudaSuccess) {                                                                               \
      std::printf("multi: CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__, #call); \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

void resetB();                            // multi_b.cu's counter to 0
void runB(int* data, int n, int factor);  // data *= factor, twice, by multi_b.cu's kernels
int counterB();                           // multi_b.cu's counter
