// Hand-melded tests/kernels/meld_loop_pair.cu (issue #35): the two loops of the divergent branch
// merged into one loop whose differing operands (trip count, array and offset, weight and its
// step) are chosen by a ternary on the branch condition, so a divergent warp runs the loop once.
// Kept outside the corpus: a target for the `meld` pass to reach. The entry has the original's
// name and parameters, so the corpus specs tests/emu/specs/meld_loop_pair.*.json launch it:
//   nvcc -arch=sm_90 -ptx bench/meld/meld_loop_pair.cu -o DIR/meld_loop_pair.ptx
//   ptxopt-bench -q --specs tests/emu/specs -o OUT --pipelines=-O0,-O3 DIR/meld_loop_pair.ptx
// (docs/passes/meld-corpus.md has the figures).
extern "C" __global__ void meld_loop_pair(const int* sel, const int* a, const int* b, int* out, int shift, int n1, int n2,
                                          int wa, int wb)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    bool p = (sel[g] >> shift) & 1;
    const int* x = p ? a + g : b + 2 * g;
    int n = p ? n1 : n2;
    int w = p ? wa : wb;
    int step = p ? 1 : -1;
    int acc = 0;
    for (int i = 0; i < n; ++i)
        acc += x[i] * (w + step * i);
    out[g] = acc;
}
