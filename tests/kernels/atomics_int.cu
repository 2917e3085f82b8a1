// kernel: atomics_int
// launch: grid=[4,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(13,-500,500)) ; acc:inout i32[8] (init: values(0,2147483647,-2147483648,-1,0,0,0,0)) ; uacc:inout u32[2] (init: zero) ; wacc:inout u64[1] (init: zero) ; n: scalar i32 = 250
// what: Global integer atomics whose final values are order-independent (add, sub, min, max, and, or, xor, inc with wrap, 64-bit add); returned old values are ignored.
extern "C" __global__ void atomics_int(const int* in, int* acc, unsigned* uacc, unsigned long long* wacc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    atomicAdd(&acc[0], v);
    atomicMin(&acc[1], v);
    atomicMax(&acc[2], v);
    atomicAnd(&acc[3], ~(1 << (i & 31)) | v);
    atomicOr(&acc[4], 1 << (v & 31));
    atomicXor(&acc[5], (int)((unsigned)v * 2654435761u));
    atomicSub(&acc[6], v & 15);
    atomicAdd(&acc[7], 1);
    atomicInc(&uacc[0], 16u);          // final value = count mod 17
    atomicMax(&uacc[1], (unsigned)v);  // unsigned view of signed values
    atomicAdd(wacc, (unsigned long long)(v & 0xff) << 28);
}
