# kernel: vector_add
# launch: grid=[4,1,1] block=[128,1,1] (num_warps=4, BLOCK=256: two elements a thread)
# what: the Triton tutorial's masked vector add: out[i] = x[i] + y[i] for i < n; the last
#       program's tail is masked off.
import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


TRITON = dict(fn=vector_add,
              signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
              constexprs={"BLOCK": 256}, num_warps=4)
