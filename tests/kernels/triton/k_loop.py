# kernel: k_loop
# launch: grid=[8,1,1] block=[32,1,1] (num_warps=1, one row a program, BLOCK_K=64)
# what: a weighted row sum with a runtime loop over K in BLOCK_K steps (the trip count comes
#       from the K argument, the last step is masked), then a reduction across the warp.
import triton
import triton.language as tl


@triton.jit
def k_loop(x_ptr, out_ptr, K, stride, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_K], dtype=tl.int32)
    for k in range(0, K, BLOCK_K):
        offs = k + tl.arange(0, BLOCK_K)
        v = tl.load(x_ptr + row * stride + offs, mask=offs < K, other=0)
        acc += v * (offs % 4 + 1)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


TRITON = dict(fn=k_loop,
              signature={"x_ptr": "*i32", "out_ptr": "*i32", "K": "i32", "stride": "i32"},
              constexprs={"BLOCK_K": 64}, num_warps=1)
