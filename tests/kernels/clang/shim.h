// Minimal CUDA shim for compiling device-only kernels with clang++-14 without the
// CUDA toolkit headers (clang 14 cannot parse CUDA 13's headers):
//   clang++-14 --cuda-gpu-arch=sm_75 --cuda-device-only -S -O2 -nocudainc -nocudalib \
//              -I tests/kernels/clang F.cu -o F.ptx
// clang 14 does not recognise CUDA 13 and so enables no "ptxNN" target features;
// builtins gated on them (e.g. __nvvm_shfl_sync_*, __nvvm_vote_*_sync) are
// rejected.  Those operations are therefore written as inline PTX here (clang
// still emits .version 6.3 for sm_75 / 7.0 for sm_80, enough for the *.sync forms).
#pragma once

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __host__ __attribute__((host))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;

// ---- special registers ----------------------------------------------------
#define SHIM_TID_X  ((unsigned)__nvvm_read_ptx_sreg_tid_x())
#define SHIM_TID_Y  ((unsigned)__nvvm_read_ptx_sreg_tid_y())
#define SHIM_TID_Z  ((unsigned)__nvvm_read_ptx_sreg_tid_z())
#define SHIM_NTID_X ((unsigned)__nvvm_read_ptx_sreg_ntid_x())
#define SHIM_NTID_Y ((unsigned)__nvvm_read_ptx_sreg_ntid_y())
#define SHIM_NTID_Z ((unsigned)__nvvm_read_ptx_sreg_ntid_z())
#define SHIM_CTAID_X ((unsigned)__nvvm_read_ptx_sreg_ctaid_x())
#define SHIM_CTAID_Y ((unsigned)__nvvm_read_ptx_sreg_ctaid_y())
#define SHIM_CTAID_Z ((unsigned)__nvvm_read_ptx_sreg_ctaid_z())
#define SHIM_NCTAID_X ((unsigned)__nvvm_read_ptx_sreg_nctaid_x())
#define SHIM_NCTAID_Y ((unsigned)__nvvm_read_ptx_sreg_nctaid_y())
#define SHIM_NCTAID_Z ((unsigned)__nvvm_read_ptx_sreg_nctaid_z())
#define SHIM_LANEID ((unsigned)__nvvm_read_ptx_sreg_laneid())

struct shim_dim3 { unsigned x, y, z; };
#define threadIdx (shim_dim3{SHIM_TID_X, SHIM_TID_Y, SHIM_TID_Z})
#define blockDim  (shim_dim3{SHIM_NTID_X, SHIM_NTID_Y, SHIM_NTID_Z})
#define blockIdx  (shim_dim3{SHIM_CTAID_X, SHIM_CTAID_Y, SHIM_CTAID_Z})
#define gridDim   (shim_dim3{SHIM_NCTAID_X, SHIM_NCTAID_Y, SHIM_NCTAID_Z})

// ---- barriers -------------------------------------------------------------
#define __syncthreads() __nvvm_bar_sync(0)
static __device__ __forceinline__ int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
static __device__ __forceinline__ int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
static __device__ __forceinline__ int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
static __device__ __forceinline__ void __syncwarp(unsigned mask = 0xffffffffu)
{
    asm volatile("bar.warp.sync %0;" ::"r"(mask) : "memory");
}

// ---- atomics (generic address space) ---------------------------------------
static __device__ __forceinline__ int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned* p, unsigned v)
{
    return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v);
}
static __device__ __forceinline__ float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ int atomicCAS(int* p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }

// ---- warp shuffles / votes (inline PTX, see note above) -------------------
static __device__ __forceinline__ int __shfl_sync(unsigned mask, int v, int src, int width = 32)
{
    int r;
    int c = ((32 - width) << 8) | 0x1f;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(src), "r"(c), "r"(mask));
    return r;
}
static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, unsigned delta, int width = 32)
{
    int r;
    int c = ((32 - width) << 8) | 0x1f;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(delta), "r"(c), "r"(mask));
    return r;
}
static __device__ __forceinline__ int __shfl_up_sync(unsigned mask, int v, unsigned delta, int width = 32)
{
    int r;
    int c = (32 - width) << 8;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(delta), "r"(c), "r"(mask));
    return r;
}
static __device__ __forceinline__ int __shfl_xor_sync(unsigned mask, int v, int lanemask, int width = 32)
{
    int r;
    int c = ((32 - width) << 8) | 0x1f;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(lanemask), "r"(c), "r"(mask));
    return r;
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int pred)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, %2;\n\t}"
                 : "=r"(r) : "r"(pred), "r"(mask));
    return r;
}

// ---- misc integer intrinsics ----------------------------------------------
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
