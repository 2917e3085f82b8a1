# kernel: if_else
# launch: grid=[2,1,1] block=[64,1,1]
# what: a data-dependent if/else (odd or even input) that splits every warp, with different
#       work on each side and a common store after the join; threads past n leave early.
from numba import cuda, int32


def if_else(out, x, n):
    i = cuda.grid(1)
    if i >= n:
        return
    v = x[i]
    if v & 1:
        r = v * 3 + 1
        r ^= r >> 2
        r += x[(i + 1) % n]
    else:
        r = v >> 1
        r -= i * 7
        r *= x[(i + 3) % n] | 1
    out[i] = r + 5


NUMBA = dict(fn=if_else, sig=(int32[:], int32[:], int32))
