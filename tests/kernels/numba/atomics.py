# kernel: atomics
# launch: grid=[4,1,1] block=[64,1,1]
# what: cuda.atomic add, max, min and a compare-and-swap on global int32 counters (a histogram
#       of value mod 8, the global maximum and minimum, and the first thread to see a negative
#       value claims a flag); every final value is independent of the order.
from numba import cuda, int32


def atomics(hist, stats, x, n):
    i = cuda.grid(1)
    if i < n:
        v = x[i]
        cuda.atomic.add(hist, v & 7, 1)
        cuda.atomic.max(stats, 0, v)
        cuda.atomic.min(stats, 1, v)
        if v < 0:
            cuda.atomic.cas(stats, 2, 0, 1)
        cuda.atomic.add(stats, 3, v)


NUMBA = dict(fn=atomics, sig=(int32[:], int32[:], int32[:], int32))
