// kernel: sparse_switch
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(7,0,8)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A sparse switch with widely spaced case labels (including negative and large values) that compiles to a compare/branch tree rather than a table.
extern "C" __global__ void sparse_switch(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int sel;
    switch (in[i]) {          // map small random to sparse keys
    case 0: sel = -5; break;
    case 1: sel = 1; break;
    case 2: sel = 17; break;
    case 3: sel = 100; break;
    case 4: sel = 1000; break;
    case 5: sel = 65536; break;
    default: sel = in[i] * 7; break;
    }
    int r;
    switch (sel) {
    case -5:    r = i * 2; break;
    case 1:     r = i + 1000; break;
    case 17:    r = i ^ 0xff; break;
    case 100:   r = i * i; break;
    case 1000:  r = -i; break;
    case 65536: r = i << 4; break;
    default:    r = sel + i; break;
    }
    out[i] = r;
}
