# kernel: matmul_fp16
# launch: grid=[2,2,1] block=[128,1,1] (num_warps=4, 64x64 tile, BLOCK_K=32, num_stages=3)
# spec: tests/emu/specs-triton/triton_matmul_fp16.json runs the sm_80 build (tl.dot becomes
#       ldmatrix and mma.sync) and the sm_90a build (wgmma.mma_async, swizzled descriptors).
# what: the Triton tutorial's fp16 matmul with fp32 accumulation, software-pipelined loads.
import triton
import triton.language as tl


@triton.jit
def matmul_fp16(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
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
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


TRITON = dict(fn=matmul_fp16,
              signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
                         "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32",
                         "stride_cm": "i32"},
              constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4,
              num_stages=3)
