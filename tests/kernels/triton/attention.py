# kernel: attention_fwd
# launch: grid=[ceil(n_ctx/64),1,1] block=[128,1,1] (num_warps=4)
# spec: tests/emu/specs-triton/triton_attention.json runs the sm_80 build (both tl.dot become
#       ldmatrix and mma.sync) and the sm_90a build (wgmma.mma_async, swizzled descriptors).
# what: a flash-attention forward pass for one head: each program takes 64 query rows, walks the
#       keys in blocks of 32 with a running row maximum and sum (online softmax), and writes
#       softmax(Q K^T * scale) V; keys past n_ctx are masked to -inf. Two tl.dot a block.
import triton
import triton.language as tl


@triton.jit
def attention_fwd(Q, K, V, Out, stride_q, stride_k, stride_v, stride_o, n_ctx, sm_scale,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols0 = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD)
    q = tl.load(Q + rows[:, None] * stride_q + dims[None, :], mask=rows[:, None] < n_ctx, other=0.0)
    row_max = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], tl.float32)
    for start in range(0, n_ctx, BLOCK_N):
        cols = start + cols0
        kt = tl.load(K + cols[None, :] * stride_k + dims[:, None], mask=cols[None, :] < n_ctx, other=0.0)
        scores = tl.dot(q, kt) * sm_scale
        scores = tl.where(cols[None, :] < n_ctx, scores, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(scores, 1))
        p = tl.exp(scores - new_max[:, None])
        rescale = tl.exp(row_max - new_max)
        row_sum = row_sum * rescale + tl.sum(p, 1)
        v = tl.load(V + cols[:, None] * stride_v + dims[None, :], mask=cols[:, None] < n_ctx, other=0.0)
        acc = acc * rescale[:, None] + tl.dot(p.to(tl.float16), v)
        row_max = new_max
    acc = acc / row_sum[:, None]
    tl.store(Out + rows[:, None] * stride_o + dims[None, :], acc.to(tl.float16), mask=rows[:, None] < n_ctx)


TRITON = dict(fn=attention_fwd,
              signature={"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "stride_q": "i32",
                         "stride_k": "i32", "stride_v": "i32", "stride_o": "i32", "n_ctx": "i32", "sm_scale": "fp32"},
              constexprs={"BLOCK_M": 64, "BLOCK_N": 32, "HEAD": 64}, num_warps=4, num_stages=2)
