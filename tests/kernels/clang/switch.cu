// kernel: clang_switch
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(102,0,100000)) ; aux:in i32[128] (init: random(103,-8,8)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A dense 10-case switch with structurally different case bodies on a divergent selector, compiled by clang (LLVM lowers it to a compare tree or brx.idx jump table), plus a sparse second switch.
#include "shim.h"

extern "C" __global__ void clang_switch(const int* in, const int* aux, int* out, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    int v = in[i];
    int a = aux[i];
    int r;
    switch ((v + i) % 10) {
    case 0: r = v + a; break;
    case 1: r = v * a; break;
    case 2: r = v - a * 3; break;
    case 3: r = (v ^ a) >> 2; break;
    case 4: r = v / (a | 1); break;
    case 5: r = aux[(i + 1) % n] + v; break;
    case 6: r = __popc(v) * a; break;
    case 7: r = in[(i + 7) % n] - a; break;
    case 8: r = __clz(a) + v; break;
    default: r = -v - 1; break;
    }
    switch (a) {
    case -7: r += 1000; break;
    case 0: r = 0; break;
    case 500: r *= 2; break;
    default: break;
    }
    out[i] = r;
}
