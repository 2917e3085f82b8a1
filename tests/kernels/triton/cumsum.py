# kernel: cumsum
# launch: grid=[5,1,1] block=[128,1,1] (num_warps=4, one row a program, BLOCK=512 >= n)
# what: inclusive prefix sum of each int32 row with tl.cumsum (a scan within each thread, across
#       lanes with shuffles and across warps through shared memory), plus the row total by tl.sum.
import triton
import triton.language as tl


@triton.jit
def cumsum(x_ptr, out_ptr, total_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + row * n + offs, mask=mask, other=0)
    tl.store(out_ptr + row * n + offs, tl.cumsum(x, axis=0), mask=mask)
    tl.store(total_ptr + row, tl.sum(x, axis=0))


TRITON = dict(fn=cumsum,
              signature={"x_ptr": "*i32", "out_ptr": "*i32", "total_ptr": "*i32", "n": "i32"},
              constexprs={"BLOCK": 512}, num_warps=4)
