# kernel: layernorm
# launch: grid=[4,1,1] block=[64,1,1] (num_warps=2, one row a program, BLOCK=256 >= n_cols)
# what: layer normalization of one row a program: mean and mean of squares by two tl.sum
#       reductions (cross-warp through shared memory), var = E[x^2] - mean^2, then
#       y = (x - mean) * rstd * w + b. Division and square root are the IEEE ones
#       (tl.div_rn, tl.sqrt_rn), and integer-valued inputs keep the sums exact in any order, so
#       every output compares bit for bit.
import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
              BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    n = n_cols.to(tl.float32)
    mean = tl.div_rn(tl.sum(x, axis=0), n)
    mean_sq = tl.div_rn(tl.sum(x * x, axis=0), n)
    var = mean_sq - mean * mean
    rstd = tl.div_rn(1.0, tl.sqrt_rn(var + eps))
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    y = (x - mean) * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


TRITON = dict(fn=layernorm,
              signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                         "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "stride": "i32",
                         "n_cols": "i32", "eps": "fp32"},
              constexprs={"BLOCK": 256}, num_warps=2)
