// kernel: predicated_select
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(33,-100,100)) ; b:in i32[128] (init: random(34,-100,100)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Small if/else blocks that only choose between values (no side effects), the shape an optimizer should turn into selp/predication instead of branches.
extern "C" __global__ void predicated_select(const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    int y = b[i];
    int r;
    if (x > y)
        r = x;
    else
        r = y + 1;
    int s;
    if ((x ^ y) & 1)
        s = r * 2;
    else
        s = r - 3;
    int t = 7;
    if (x < 0)
        t = -x;
    out[i] = s + t;
}
