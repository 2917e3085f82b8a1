// Divergent benchmark kernel for ptxrun: per-lane trip counts and a data-dependent if/else
// whose sides are too long to predicate, so warps split and reconverge on every iteration.
extern "C" __global__ void divergent(float* out, int iters)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = i * 0.5f, b = 1.0f;
    unsigned h = i * 2654435761u;
    int n = iters + (int)(i % 32);
    for (int k = 0; k < n; ++k) {
        h = h * 1664525u + 1013904223u;
        if (h & 0x10000u) {
            a = a * 0.75f + b;
            b = b * 1.5f - a * 0.25f;
            a = fmaf(a, b, 0.125f) * 0.5f;
            b = b + a * 0.75f;
            h ^= h >> 7;
        } else {
            a = a - 0.5f * b;
            b = fmaf(b, 0.25f, a) + 1.0f;
            a = a * b - 0.375f;
            b = b * 0.875f;
            h += h << 3;
        }
    }
    out[i] = a + b;
}
