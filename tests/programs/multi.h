// multi_a.cu and multi_b.cu: multi_b.cu's host functions, and the error check both use.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define PROGRAM_NAME "multi"
#include "check.h"

void resetB();                            // multi_b.cu's counter to 0
void runB(int* data, int n, int factor);  // data *= factor, twice, by multi_b.cu's kernels
int counterB();                           // multi_b.cu's counter
