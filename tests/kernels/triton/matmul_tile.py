# kernel: matmul_tile
# launch: grid=[3,3,1] block=[64,1,1] (num_warps=2, 16x16 output tile a program, BLOCK_K=16,
#         num_stages=1: no cp.async software pipelining; with 4 warps the sm_80 code would
#         load the operands with ldmatrix; on sm_90a the result's layout change goes through
#         stmatrix. Both builds are launched.)
# what: C = A @ B with a loop over K in BLOCK_K steps (masked K tail), tl.dot in IEEE fp32
#       (no tensor cores: each output is one chain of fma.rn.f32 over k in order).
import triton
import triton.language as tl


@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


TRITON = dict(fn=matmul_tile,
              signature={"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32",
                         "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32",
                         "stride_cm": "i32"},
              constexprs={"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}, num_warps=2,
              num_stages=1)
