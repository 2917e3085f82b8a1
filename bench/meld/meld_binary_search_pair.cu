// Hand-melded tests/kernels/meld_binary_search_pair.cu (issue #35): the two binary searches of
// the divergent branch merged into one whose differing operands (array, length, key) are chosen
// by a ternary on the branch condition, so a divergent warp runs the search loop once.
// Kept outside the corpus: a target for the `meld` pass to reach. The entry has the original's
// name and parameters, so the corpus specs tests/emu/specs/meld_binary_search_pair.*.json launch
// it (docs/passes/meld-corpus.md has the command and the figures).
extern "C" __global__ void meld_binary_search_pair(const int* keys, const int* A, int na, const int* B, int nb, int* idx,
                                                   int* val)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int k = keys[g];
    bool p = k >= 0;
    const int* arr = p ? A : B;
    int n = p ? na : nb;
    int key = p ? k : 3 * ~k;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (arr[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    idx[g] = lo;
    val[g] = lo < n ? arr[lo] : 0x7fffffff;
}
