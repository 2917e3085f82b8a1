# kernel: atomic_hist
# launch: grid=[4,1,1] block=[128,1,1] (num_warps=4, BLOCK=256)
# what: a histogram by tl.atomic_add on global counters (bin = value mod 16, masked tail) and
#       a global maximum by tl.atomic_max; both results are independent of the order.
import triton
import triton.language as tl


@triton.jit
def atomic_hist(x_ptr, hist_ptr, max_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (x & 15), 1, mask=mask)
    tl.atomic_max(max_ptr, tl.max(tl.where(mask, x, -2147483648), axis=0))


TRITON = dict(fn=atomic_hist,
              signature={"x_ptr": "*i32", "hist_ptr": "*i32", "max_ptr": "*i32", "n": "i32"},
              constexprs={"BLOCK": 256}, num_warps=4)
