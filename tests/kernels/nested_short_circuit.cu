// kernel: nested_short_circuit
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(321,-300,300)) ; b:in i32[128] (init: random(322,-300,300)) ; tbl:in i32[64] (init: random(323,-60,60)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Three nested ifs whose conditions mix && and || with table loads as the second operand ((a > 0 && tbl[a & 63] > b) || b == 7, then a < 200 || (b & 1 && tbl[b & 31] < 0), then b > -100 && a + b < 300), so the short circuits stay branches around the loads.
extern "C" __global__ void nested_short_circuit(const int* a, const int* b, const int* tbl, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    int r;
    if ((x > 0 && tbl[x & 63] > y) || y == 7) {
        if (x < 200 || ((y & 1) && tbl[y & 31] < 0)) {
            if (y > -100 && x + y < 300)
                r = x * 3 - y;
            else
                r = x - tbl[(x + y) & 63];
        } else {
            r = y * 2 + tbl[x & 15];
        }
    } else {
        r = -x - i;
    }
    out[i] = r;
}
