// kernel: switch_constants
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(13,0,40)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A dense 12-way switch whose cases only assign constants to two variables, with holes and a default: the switch-to-lookup-table shape.
extern "C" __global__ void switch_constants(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i] % 16;
    int a, b;
    switch (v) {
    case 0: a = 17; b = -3; break;
    case 1: a = 4; b = 90; break;
    case 2: a = -8; b = 1; break;
    case 3: a = 250; b = 7; break;
    case 5: a = 33; b = 33; break;
    case 6: a = 0; b = -40; break;
    case 7: a = 61; b = 2; break;
    case 8: a = -1; b = 1000; break;
    case 9: a = 12; b = 12; break;
    case 10: a = 5; b = -5; break;
    case 12: a = 71; b = 8; break;
    case 13: a = 9; b = 64; break;
    default: a = 1; b = 1; break;
    }
    out[i] = a * 1000 + b;
}
