// The kernel `make demo` optimizes and measures: a conservative __syncthreads() that orders
// nothing, a needed one, a branch that diverges inside warps, and two switches (one on a
// uniform kernel argument, one on the lane). nvcc -arch=sm_90 -O3 -ptx examples/demo.cu.
__global__ void demo(const int* __restrict__ in, int* __restrict__ out, int n, int mode) {
  __shared__ int tile[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  int v = i < n ? in[i] : 0;
  __syncthreads();  // orders no shared-memory access: a dead barrier
  tile[t] = v;
  __syncthreads();  // needed: the next line reads a neighbour's slot
  int w = tile[(t + 1) % blockDim.x];
  if (v & 1)  // odd and even inputs take different sides inside a warp
    w = w * 3 + 1;
  else
    w = w / 2;
  switch (mode) {  // uniform: every thread of the launch takes the same case
    case 0: w += 1; break;
    case 1: w ^= 0x55; break;
    case 2: w <<= 1; break;
    case 3: w -= t; break;
    default: break;
  }
  switch (t & 3) {  // divergent: the four cases split every warp
    case 0: w += v; break;
    case 1: w -= v; break;
    case 2: w *= 3; break;
    default: w = ~w; break;
  }
  if (i < n) out[i] = w;
}
