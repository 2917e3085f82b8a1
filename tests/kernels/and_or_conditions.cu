// kernel: and_or_conditions
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(4,-20,20)) ; b:in i32[128] (init: random(5,-20,20)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Short-circuit && and || conditions whose right-hand operands contain memory loads, so the compiler must keep the evaluation order (extra branches) rather than flatten everything.
extern "C" __global__ void and_or_conditions(const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r = 0;
    if (i < n && a[i] > 0 && b[i] < 5)
        r |= 1;
    if (i < n && (a[i] == b[i] || (i + 1 < n && a[i + 1] < -10)))
        r |= 2;
    if ((i & 1) && i < n && !(b[i] > 0 || a[i] > 0))
        r |= 4;
    if (i < n && ((a[i] > 3 && b[i] > 3) || (a[i] < -3 && b[i] < -3)))
        r |= 8;
    if (i < n)
        out[i] = r;
}
