// kernel: nested_elseif_chain
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(311,-1000,1200)) ; out:out i32[128] (init: zero) ; aux:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: An else-if chain of six arms on value ranges of in[i]; the second arm nests an if on the parity of the value and the fourth an if/else-if on the lane (i & 7) and v % 3, so a warp splits up to eight ways. Three leaves also store to aux.
extern "C" __global__ void nested_elseif_chain(const int* in, int* out, int* aux, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int r;
    if (v < -500) {
        r = -v * 3 + i;
    } else if (v < 0) {
        if (v & 1) {
            r = v * v - 7;
            aux[i] = r;
        } else {
            r = (v >> 1) ^ i;
        }
    } else if (v < 250) {
        r = v * 5 + 11;
    } else if (v < 600) {
        if ((i & 7) < 3) {
            r = v - (i << 4);
            aux[i] = -r;
        } else if (v % 3 == 0) {
            r = v / 3;
        } else {
            r = v + 1;
        }
    } else if (v < 900) {
        r = (v & 0x3f) * 17;
    } else {
        r = 12345 - v;
        aux[i] = v;
    }
    out[i] = r;
}
