// kernel: nested_if3
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(301,-300,300)) ; b:in i32[128] (init: random(302,-300,300)) ; c:in i32[128] (init: random(303,-300,300)) ; out:out i32[128] (init: zero) ; tag:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Three levels of data-dependent if/else on three loaded values (a > 0, then b > c, then the parity of a), five leaves with a few integer ops each; three leaves also store a tag, so every level splits a warp and stays a real branch.
extern "C" __global__ void nested_if3(const int* a, const int* b, const int* c, int* out, int* tag, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i], z = c[i];
    int r;
    if (x > 0) {
        if (y > z) {
            if (x & 1) {
                r = x * y + z;
                tag[i] = 1;
            } else {
                r = (x ^ y) - 3 * z;
                tag[i] = 2;
            }
        } else {
            r = (z - y) * x + (x >> 2);
        }
    } else {
        if (z < 0) {
            r = x * z - y;
            tag[i] = 3;
        } else {
            r = y + z - x;
        }
    }
    out[i] = r;
}
