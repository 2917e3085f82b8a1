// A per-element opcode interpreter: each element says which of eight operations to apply, so the
// switch diverges within a warp. nvcc keeps it as a tree of compare-and-branch; ptxopt's
// switch-opt lowers it (docs/passes/switch-opt.md).
#include <cstdio>
#include <vector>

__global__ void apply_ops(const int* ops, const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  float y;
  switch (ops[i] & 7) {
    case 0: y = x + 1.0f; break;
    case 1: y = x * 3.0f; break;
    case 2: y = x - 17.0f; break;
    case 3: y = x * x; break;
    case 4: y = -x; break;
    case 5: y = x * 0.5f + 2.0f; break;
    case 6: y = x > 0.0f ? x : 0.0f; break;
    default: y = 0.0f; break;
  }
  out[i] = y;
}

int main() {
  const int n = 1 << 12;
  std::vector<int> ops(n);
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) {
    ops[i] = (i * 7) % 11;
    host[i] = static_cast<float>(i % 17) - 8.0f;
  }
  int* dops = nullptr;
  float *din = nullptr, *dout = nullptr;
  if (cudaMalloc(&dops, n * sizeof(int)) != cudaSuccess) {
    std::printf("no CUDA device: built, not run\n");
    return 0;
  }
  cudaMalloc(&din, n * sizeof(float));
  cudaMalloc(&dout, n * sizeof(float));
  cudaMemcpy(dops, ops.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(din, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  apply_ops<<<(n + 255) / 256, 256>>>(dops, din, dout, n);
  cudaMemcpy(host.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("out[0..3] = %g %g %g %g\n", host[0], host[1], host[2], host[3]);
  cudaFree(dops);
  cudaFree(din);
  cudaFree(dout);
  return 0;
}
