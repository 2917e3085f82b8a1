// kernel: meld_merge_sort_corank
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (sorted runs of width) ; out:out i32[256] (init: zero) ; n: scalar i32 ; width: scalar i32
// what: One pass of a bottom-up merge sort: `in` holds sorted runs of `width` keys, each pair of runs is merged into `out` by co-rank: every thread finds its key's place in the merged pair with a binary search in the other run of the pair, lower_bound in the right run for a key of the left run, upper_bound in the left run for a key of the right run (ties keep the left run first), two searches of one shape on different runs and comparisons. The .divergent spec (width 8, n 250: a short last run) splits every warp; the .uniform spec (width 64) gives whole warps one side.
extern "C" __global__ void meld_merge_sort_corank(const int* in, int* out, int n, int width)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    int v = in[g];
    int run = g / width;
    int base = (run & ~1) * width;
    int rank = g - run * width;
    int lo = 0;
    if ((run & 1) == 0) {
        const int* other = in + base + width;
        int hi = min(width, max(n - (base + width), 0));
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (other[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
    } else {
        const int* other = in + base;
        int hi = width;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (other[mid] <= v)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    out[base + rank + lo] = v;
}
