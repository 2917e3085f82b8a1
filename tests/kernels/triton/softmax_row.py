# kernel: softmax_row
# launch: grid=[6,1,1] block=[128,1,1] (num_warps=4, one row a program, BLOCK=256 >= n_cols)
# what: the Triton tutorial's fused row softmax (max, exp, sum, divide in registers, masked
#       columns read as -inf), which also stores each row's maximum. exp and the division are
#       approximate (ex2.approx, div.full), so only row_max compares bit for bit.
import triton
import triton.language as tl


@triton.jit
def softmax_row(out_ptr, in_ptr, row_max_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    num = tl.exp(x - m)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)
    tl.store(row_max_ptr + row, m)


TRITON = dict(fn=softmax_row,
              signature={"out_ptr": "*fp32", "in_ptr": "*fp32", "row_max_ptr": "*fp32",
                         "in_stride": "i32", "out_stride": "i32", "n_cols": "i32"},
              constexprs={"BLOCK": 256}, num_warps=4)
