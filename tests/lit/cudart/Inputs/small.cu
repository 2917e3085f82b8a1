__device__ int counter;
__global__ void bump(int* out) { out[threadIdx.x] = atomicAdd(&counter, 1); }
