// kernel: meld_loop_pair
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: sel:in i32[256] ; a:in i32[280] ; b:in i32[529] ; out:out i32[256] (init: zero) ; shift: scalar i32 ; n1: scalar i32 = 24 ; n2: scalar i32 = 17 ; wa: scalar i32 = 3 ; wb: scalar i32 = 40
// what: A lane-divergent two-way branch (bit `shift` of sel[g]) whose sides are two loops of one shape with different operands: a weighted sum over a[g+i] for n1 trips, or over b[2g+i] with other weights for n2 trips (control-flow melding, issue #35). The .divergent spec (random sel, shift 0) splits every warp; the .uniform spec (sel = g, shift 5) sends whole warps one way.
extern "C" __global__ void meld_loop_pair(const int* sel, const int* a, const int* b, int* out, int shift, int n1, int n2,
                                          int wa, int wb)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    if ((sel[g] >> shift) & 1) {
        for (int i = 0; i < n1; ++i)
            acc += a[g + i] * (wa + i);
    } else {
        for (int i = 0; i < n2; ++i)
            acc += b[2 * g + i] * (wb - i);
    }
    out[g] = acc;
}
