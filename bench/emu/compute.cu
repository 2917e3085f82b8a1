// Compute-bound benchmark kernel for ptxrun: every thread runs a long loop of integer and
// float arithmetic with no memory traffic and no divergence.
extern "C" __global__ void compute(float* out, int iters)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = i * 0.5f, b = 1.0f;
    unsigned h = i * 2654435761u;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, 0.999f, b);
        b = b * 0.5f + 0.25f;
        h = (h ^ (h >> 13)) * 5u + k;
    }
    out[i] = a + b + (float)(h & 1023);
}
