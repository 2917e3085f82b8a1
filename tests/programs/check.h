// The error check every program of tests/programs uses, as real suites have one (helper_cuda.h's
// checkCudaErrors): a failed call prints its error's name, where, and the call, and exits 1.
// Define PROGRAM_NAME (the program's name, for the message) before including it.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                                  \
  do {                                                                                                    \
    cudaError_t err_ = (call);                                                                            \
    if (err_ != cudaSuccess) {                                                                            \
      std::printf("%s: CUDA error %s at %s:%d: %s\n", PROGRAM_NAME, cudaGetErrorName(err_), __FILE__, __LINE__, \
                  #call);                                                                                 \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)
