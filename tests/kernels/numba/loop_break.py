# kernel: loop_break
# launch: grid=[2,1,1] block=[64,1,1]
# what: a loop whose trip count and early break depend on each thread's data: walk up to m
#       steps of a Collatz-like sequence, stop at the first value below 2 or divisible by 7.
from numba import cuda, int32


def loop_break(out, steps, x, m, n):
    i = cuda.grid(1)
    if i < n:
        v = x[i]
        k = 0
        while k < m:
            if v < 2 or v % 7 == 0:
                break
            if v & 1:
                v = 3 * v + 1
            else:
                v = v >> 1
            k += 1
        out[i] = v
        steps[i] = k


NUMBA = dict(fn=loop_break, sig=(int32[:], int32[:], int32[:], int32, int32))
