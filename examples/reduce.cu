#include <cstdio>
__device__ __noinline__ int helper(int x) { return x * 3 + 1; }
__global__ void k(const float* __restrict__ in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  s[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x/2; st > 0; st >>= 1) { if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x+st]; __syncthreads(); }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
  int c = __syncthreads_count(v > 0);
  if (i == 0) printf("count %d %f\n", c, v);
  int w = __shfl_down_sync(0xffffffff, helper(i), 1);
  if (__any_sync(0xffffffff, w > 5)) atomicAdd(out, 1.0f);
  int loc[8]; for (int j=0;j<8;j++) loc[j]=in[j+i%3]; out[i%5] += loc[i%8];
  switch (i & 15) { case 0: out[1]=1; break; case 1: out[2]=2; break; case 2: out[3]=3; break; case 3: out[4]=3; break; case 5: out[5]=3;break; case 7: out[6]=2; break; default: out[0]=0; }
}
