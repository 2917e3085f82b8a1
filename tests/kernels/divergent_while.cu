// kernel: divergent_while
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(361,1,3000)) ; peak:out i32[128] (init: zero) ; steps:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A Collatz iteration per thread, a while loop with a data-dependent trip count (up to 200) whose body branches on the parity of the value, the odd side nesting an if that tracks the peak and counts the odd steps.
extern "C" __global__ void divergent_while(const int* in, int* peak, int* steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int hi = v, cnt = 0, odd = 0;
    while (v != 1 && cnt < 200) {
        if (v & 1) {
            v = 3 * v + 1;
            ++odd;
            if (v > hi) {
                hi = v;
                peak[i] = hi;
            }
        } else {
            v >>= 1;
        }
        ++cnt;
    }
    steps[i] = cnt * 256 + odd;
}
