// kernel: pred_large_diamond
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] ; out:out i32[256] (init: zero) ; shift: scalar i32 ; n: scalar i32 = 256
// what: A diamond of about ten integer ALU instructions per side, chosen by bit `shift` of the loaded value. The .divergent spec (random input, shift 0) splits every warp; the .uniform spec (input i, shift 5) sends whole warps one way. The uniformity analysis sees a loaded value either way: only a profile tells the launches apart.
extern "C" __global__ void pred_large_diamond(const int* in, int* out, int shift, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i % n];
    int a = v, b = v ^ 0x5bd1;
    if ((v >> shift) & 1) {
        a = a * 7 + 3;
        a ^= a >> 3;
        a += b * 5;
        a = (a << 2) - b;
        a ^= 0x1234;
        b += a >> 1;
        b = b * 9 + a;
        b ^= b << 4;
    } else {
        b = b * 11 - 1;
        b ^= b >> 5;
        b += a * 3;
        a = (b << 3) + a;
        a ^= 0x4321;
        a -= b >> 2;
        b = b * 13 - a;
        a ^= a << 6;
    }
    out[i] = a + b;
}
