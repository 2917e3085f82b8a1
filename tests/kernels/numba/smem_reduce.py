# kernel: smem_reduce
# launch: grid=[4,1,1] block=[128,1,1] (the shared array has 128 elements)
# what: a tree reduction in a cuda.shared.array with cuda.syncthreads() between halving steps;
#       thread 0 of each block writes the block's sum.
from numba import cuda, int32


def smem_reduce(out, x, n):
    s = cuda.shared.array(128, int32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    s[t] = x[i] if i < n else 0
    cuda.syncthreads()
    stride = 64
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


NUMBA = dict(fn=smem_reduce, sig=(int32[:], int32[:], int32))
