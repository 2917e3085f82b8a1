// kernel: nested_depth4
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: a:in i32[128] (init: random(331,-200,200)) ; b:in i32[128] (init: random(332,-200,200)) ; s_out:out i32[128] (init: zero) ; t_out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: Four levels of data-dependent if/else (sign of a, sign of b, a > b or a + b > 0, then a bit or residue test) where both sides of every level update two accumulators s and t, stored at the end.
extern "C" __global__ void nested_depth4(const int* a, const int* b, int* s_out, int* t_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    int s = i, t = 1;
    if (x > 0) {
        s += x + y;
        if (y > 0) {
            t = x * y;
            if (x > y) {
                s -= y << 1;
                if ((x & 3) == 1) { t += s * 7; s ^= 0x55; }
                else              { t -= x; s += 13; }
            } else {
                t ^= y;
                if (y % 5 == 2) { s = s * 3 - t; }
                else            { s += x * 2; t -= 9; }
            }
        } else {
            t = y - x;
            if (x + y > 0) {
                s += t * 5;
                if (x & 1) { t <<= 2; s -= x; }
                else       { s -= 100; t += y; }
            } else {
                s = x * 4 - s;
                if (y < -100) { t = t * 3 + 1; }
                else          { t ^= 0x0f0f; s += 3; }
            }
        }
    } else {
        s -= y;
        if (y < x) {
            t = x - y * 2;
            if ((y & 1) == 0) {
                s ^= t;
                if (x < -60) { t += 77; } else { s *= 3; }
            } else {
                s += t >> 1;
            }
        } else {
            t = y + 11;
            s += i & 7;
        }
    }
    s_out[i] = s;
    t_out[i] = t;
}
