// kernel: meld_binary_search_pair
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: keys:in i32[256] ; A:in i32[200] (sorted) ; na: scalar i32 = 200 ; B:in i32[150] (sorted) ; nb: scalar i32 = 150 ; idx:out i32[256] (init: zero) ; val:out i32[256] (init: zero)
// what: A lane-divergent two-way branch on the sign of each thread's key whose sides are two binary searches (lower_bound) of one shape: the key itself in the sorted array A, or the transformed key 3*~k in the sorted array B of another length (control-flow melding, issue #35). Writes the position and the element found there (INT_MAX past the end). The .divergent spec mixes signs within every warp; the .uniform spec gives each warp keys of one sign.
extern "C" __global__ void meld_binary_search_pair(const int* keys, const int* A, int na, const int* B, int nb, int* idx,
                                                   int* val)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int k = keys[g];
    int lo = 0;
    int v = 0x7fffffff;
    if (k >= 0) {
        int hi = na;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (A[mid] < k)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < na)
            v = A[lo];
    } else {
        int key = 3 * ~k;
        int hi = nb;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (B[mid] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nb)
            v = B[lo];
    }
    idx[g] = lo;
    val[g] = v;
}
