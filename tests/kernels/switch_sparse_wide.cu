// kernel: switch_sparse_wide
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(73,0,3000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A switch on a key picked from a __constant__ table by in[i] % 9, with 8 sparse case values from -50 to 1<<20 (every one of them occurs) and a default: a compare tree, not a jump table.
__constant__ int sparse_keys[9] = {-50, 3, 17, 100, 999, 4096, 70000, 1 << 20, 5};

extern "C" __global__ void switch_sparse_wide(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int key = sparse_keys[v % 9];
    int r;
    switch (key) {
    case -50: r = v + 11; break;
    case 3: r = v * 9; break;
    case 17: r = v ^ 0x777; break;
    case 100: r = v - 100000; break;
    case 999: r = (v >> 4) + i; break;
    case 4096: r = v * v; break;
    case 70000: r = v / 7; break;
    case 1 << 20: r = v | key; break;
    default: r = key * 3 + v; break;
    }
    out[i] = r;
}
