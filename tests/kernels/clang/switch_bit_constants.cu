// kernel: clang_switch_bit_constants
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(9,-3,16)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A switch of two targets over 1..11 that only assign constants, and a default that
// computes: clang lowers it to bit tests behind a range check and assigns the first target's
// constants in the first bit test's block; switch-opt moves them out, then builds a value table.
#include "shim.h"

extern "C" __global__ void clang_switch_bit_constants(const int* in, int* out, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    int v = in[i];
    int a, b;
    switch (v) {
    case 1: case 3: case 5: case 7: case 9: case 11: a = 10; b = 1; break;
    case 2: case 4: case 6: case 8: case 10: a = 20; b = 2; break;
    default: a = v; b = 0; break;
    }
    out[i] = a * 1000 + b;
}
