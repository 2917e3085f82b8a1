# kernel: rowmax
# launch: grid=[2,1,1] block=[128,1,1] (num_warps=4, a 64 x 64 tile a program)
# what: the maximum of each row of a 64 x 64 tile (tl.max over axis 1 of a 2-D block). Triton's
#       cross-warp step has all lanes of a warp store the warp's partial maximum to one shared
#       word: write races of the same value, which ptxrun --check-races reports as notes (issue
#       #34), not as races.
import triton
import triton.language as tl


@triton.jit
def rowmax(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    tile = tl.program_id(0)
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + tile * M * N + rows * N + cols)
    tl.store(out_ptr + tile * M + tl.arange(0, M), tl.max(x, axis=1))


TRITON = dict(fn=rowmax, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"}, constexprs={"M": 64, "N": 64},
              num_warps=4)
