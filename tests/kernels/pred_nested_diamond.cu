// kernel: pred_nested_diamond
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] ; out:out i32[256] (init: zero) ; shift: scalar i32 ; n: scalar i32 = 256
// what: Three levels of if/else on bits shift, shift+1 and shift+2 of the loaded value, a few ALU instructions at each level. The .divergent spec (random input, shift 0) splits every warp at every level; the .uniform spec (input i, shift 5) keeps each warp together.
extern "C" __global__ void pred_nested_diamond(const int* in, int* out, int shift, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i % n];
    int r = v;
    if ((v >> shift) & 1) {
        r = r * 3 + 1;
        if ((v >> (shift + 1)) & 1) {
            r ^= r >> 2;
            if ((v >> (shift + 2)) & 1)
                r += 17;
            else
                r -= 5;
            r *= 7;
        } else {
            r += v << 1;
            r ^= 0x55;
        }
        r -= 9;
    } else {
        r = r * 5 - 2;
        if ((v >> (shift + 1)) & 1) {
            r ^= r << 3;
            r += 11;
        } else {
            r -= v >> 1;
            r ^= 0xaa;
        }
        r += 4;
    }
    out[i] = r;
}
