# kernel: where_branch
# launch: grid=[4,1,1] block=[64,1,1] (num_warps=2, BLOCK=128)
# what: a data-dependent branch on a value each program loads (mode[pid]: three arms, uniform
#       within a program but different between programs), tl.where selects inside each arm, and
#       a scalar while loop whose trip count comes from the data (halve mode's limit until small).
import triton
import triton.language as tl


@triton.jit
def where_branch(x_ptr, mode_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    mode = tl.load(mode_ptr + pid)
    if mode == 0:
        y = tl.where(x > 0, x * 2, -x)
    elif mode == 1:
        y = tl.where(x % 3 == 0, x // 3, x + 7)
    else:
        y = tl.maximum(x, 10) - tl.minimum(x, -10)
    steps = 0
    limit = mode * 1000 + 37
    while limit > 5:
        limit = limit // 2
        steps += 1
    tl.store(out_ptr + offs, y + steps, mask=mask)


TRITON = dict(fn=where_branch,
              signature={"x_ptr": "*i32", "mode_ptr": "*i32", "out_ptr": "*i32", "n": "i32"},
              constexprs={"BLOCK": 128}, num_warps=2)
