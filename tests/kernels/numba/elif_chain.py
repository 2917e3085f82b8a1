# kernel: elif_chain
# launch: grid=[2,1,1] block=[64,1,1]
# what: a switch written as an if/elif chain on each thread's value mod 8 (six arms and a
#       default), so a warp splits into up to seven paths that join before the store.
from numba import cuda, int32


def elif_chain(out, x, n):
    i = cuda.grid(1)
    if i < n:
        v = x[i]
        c = v & 7
        if c == 0:
            r = v + 100
        elif c == 1:
            r = v * 5
        elif c == 2:
            r = v ^ 0x5a5a
        elif c == 3:
            r = (v << 3) - v
        elif c == 4:
            r = -v
        elif c == 6:
            r = v >> 2
        else:
            r = i
        out[i] = r


NUMBA = dict(fn=elif_chain, sig=(int32[:], int32[:], int32))
