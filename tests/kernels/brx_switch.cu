// kernel: brx_switch
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(54,0,100000)) ; aux:in i32[128] (init: random(55,-1000,1000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A dense 16-case switch on a lane-divergent selector where each case does structurally different work (so it is not turned into a value table); nvcc lowers it to an indexed branch (brx.idx) jump table.
extern "C" __global__ void brx_switch(const int* in, const int* aux, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int a = aux[i];
    int r;
    switch ((v + i) & 15) {
    case 0:  r = v + a; break;
    case 1:  r = v * a; break;
    case 2:  r = v - a * 3; break;
    case 3:  r = (v ^ a) >> 2; break;
    case 4:  r = v / (a | 1); break;
    case 5:  r = v % ((a & 255) + 1); break;
    case 6:  r = aux[(i + 1) % n] + v; break;
    case 7:  r = __popc(v) * a; break;
    case 8:  r = max(v, a) - min(v, a); break;
    case 9:  r = __brev(v) >> 5; break;
    case 10: r = in[(i + 7) % n] - a; break;
    case 11: r = (v << 3) | (a & 7); break;
    case 12: r = __clz(a) + v; break;
    case 13: r = abs(a) * 17; break;
    case 14: r = (v & a) + (v | a); break;
    default: r = -v - 1; break;
    }
    out[i] = r;
}
