// kernel: global_var_init
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(53,0,1000)) ; out:out i32[128] (init: zero) ; text:out u8[128] (init: zero) ; n: scalar i32 = 128
// what: Reads __device__ global variables with static initializers (int and short tables, a char string, and an array of pointers to strings) that become initialized .global data in the PTX; includes a bounded strlen loop.
__device__ int primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
__device__ short weights[5] = {-3, 7, 0, 11, -1};
__device__ const char message[] = "ptxopt global string table!";
__device__ const char* const words[4] = {"zero", "one", "two", "three"};

extern "C" __global__ void global_var_init(const int* in, int* out, unsigned char* text, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    out[i] = primes[v & 15] * weights[v % 5] + primes[i & 15];
    const char* w = words[v & 3];
    int len = 0;
    while (len < 8 && w[len] != '\0')
        ++len;
    text[i] = (unsigned char)(message[i % (int)(sizeof(message) - 1)] + len);
}
