// kernel: warp_vote
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(18,-5,60)) ; out:out u32[128] (init: zero) ; n: scalar i32 = 128
// what: Warp vote intrinsics __ballot_sync, __any_sync and __all_sync on data-dependent predicates, plus a ballot inside a divergent branch using a sub-mask.
extern "C" __global__ void warp_vote(const int* in, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int v = (i < n) ? in[i] : 0;
    unsigned ballot = __ballot_sync(0xffffffffu, v > 30);
    int any_neg = __any_sync(0xffffffffu, v < 0);
    int all_small = __all_sync(0xffffffffu, v < 59);
    unsigned r = ballot ^ (any_neg ? 0x80000000u : 0u) ^ (all_small ? 1u : 0u);
    unsigned even_mask = 0x55555555u;
    if ((lane & 1) == 0) {
        unsigned b2 = __ballot_sync(even_mask, v & 1);
        r += __popc(b2) + (b2 & 0xffu);
    }
    r += __popc(ballot & ((1u << lane) - 1u));   // rank among voters
    if (i < n)
        out[i] = r;
}
