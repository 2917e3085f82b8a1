# kernel: saxpy
# launch: grid=[4,1,1] block=[64,1,1]
# what: out[i] = a * x[i] + y[i] for i < n (NVVM contracts it into one fma.rn.f32).
from numba import cuda, float32, int32


def saxpy(out, x, y, a, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]


NUMBA = dict(fn=saxpy, sig=(float32[:], float32[:], float32[:], float32, int32))
