# kernel: argmax
# launch: grid=[6,1,1] block=[64,1,1] (num_warps=2, one row a program, BLOCK=128 >= n_cols)
# what: index and value of each row's maximum (tl.argmax / tl.max; masked columns read as -inf;
#       ties go to the lower index), a reduction of (value, index) pairs across lanes and warps.
import triton
import triton.language as tl


@triton.jit
def argmax(x_ptr, idx_ptr, max_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))


TRITON = dict(fn=argmax,
              signature={"x_ptr": "*fp32", "idx_ptr": "*i32", "max_ptr": "*fp32", "stride": "i32",
                         "n_cols": "i32"},
              constexprs={"BLOCK": 128}, num_warps=2)
