// kernel: sync_private_slot
// launch: grid=[2,1,1] block=[128,1,1] dynamic_shared=0
// params: in:in i32[256] (init: random(403,-1000,1000)) ; out:out i32[256] (init: zero)
// what: Each thread stores into its own shared slot s[t], passes a __syncthreads, and reads back only s[t]; the global load and store also use only the thread's own index.
// barriers: #1 orders no accesses of different threads in this launch: every thread touches
// only s[t], in[g] and out[g]. dead-sync keeps it, rightly for other launches: without
// .reqntid a 64 x 2 block is legal and threads (x,0), (x,1) share s[x]; and `in` and `out` may
// overlap (out == in + 1: thread t's store to out[g] is thread t+1's load of in[g+1]).
#define BLOCK 128
extern "C" __global__ void sync_private_slot(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    s[t] = in[g] * 7 + (int)t;
    __syncthreads();                                                // #1 thread-private
    out[g] = s[t] ^ 0x5a5a;
}
