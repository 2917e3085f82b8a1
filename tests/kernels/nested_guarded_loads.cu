// kernel: nested_guarded_loads
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: idx:in i32[128] (init: random(341,-20,90)) ; tab:in i32[64] (init: random(342,-30,60)) ; out:out i32[128] (init: zero) ; hits:out i32[128] (init: zero) ; m: scalar i32 = 64 ; n: scalar i32 = 128
// what: Nested ifs that load tab[k] only when 0 <= k < m and then tab[k + v - 1] only when v > 0 and that index is below m (so hoisting either load above its guard would read out of bounds), with a conditional store of the second index into hits.
extern "C" __global__ void nested_guarded_loads(const int* idx, const int* tab, int* out, int* hits, int m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = idx[i];
    int r = -1;
    if (k >= 0) {
        if (k < m) {
            int v = tab[k];
            if (v > 0) {
                int k2 = k + v - 1;
                if (k2 < m) {
                    r = v + tab[k2];
                    hits[i] = k2 + 1;
                } else {
                    r = v * 2;
                }
            } else {
                r = -v - k;
            }
        } else {
            r = k - m;
        }
    }
    out[i] = r;
}
