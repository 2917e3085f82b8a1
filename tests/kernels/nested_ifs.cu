// kernel: nested_ifs
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: a:in i32[256] (init: random(2,-50,50)) ; b:in i32[256] (init: random(3,-50,50)) ; out:out i32[256] (init: zero) ; n: scalar i32 = 256
// what: Three levels of nested data-dependent if/else on two inputs give eight distinct leaf computations, exercising nested divergence and reconvergence.
extern "C" __global__ void nested_ifs(const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i];
        int y = b[i];
        int r = 0;
        if (x > 0) {
            if (y > 0) {
                if (x > y) r = x - y;
                else       r = y * 2 + x;
            } else {
                if (x + y > 0) r = x * y;
                else           r = -x + 100;
            }
        } else {
            if (y > x) {
                if ((y & 3) == 0) r = y << 3;
                else              r = y ^ x;
            } else {
                if (x == y) r = 12345;
                else        r = x - 3 * y;
            }
        }
        out[i] = r;
    }
}
