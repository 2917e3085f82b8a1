// kernel: vector_loads
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: f:in f32[512] (init: random(49,-10,10)) ; iv:in i32[256] (init: random(50,-1000,1000)) ; fo:out f32[512] (init: zero) ; io:out i32[256] (init: zero) ; n: scalar i32 = 128
// what: 128-bit float4 and 64-bit int2 vector loads/stores (ld.global.v4.f32 / v2.s32) with component-wise shuffling; n counts float4 elements.
extern "C" __global__ void vector_loads(const float4* f, const int2* iv, float4* fo, int2* io, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v = f[i];
    float4 w = f[(i + 1) % n];
    float4 r;
    r.x = v.y + w.x;
    r.y = v.z * w.y;
    r.z = v.w - w.z;
    r.w = v.x * 0.5f + w.w;
    fo[i] = r;
    int2 p = iv[i];
    int2 q;
    q.x = p.y - p.x;
    q.y = p.x ^ (p.y << 3);
    io[i] = q;
}
