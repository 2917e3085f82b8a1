// kernel: switch_float_table
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(74,0,11)) ; fout:out f32[128] (init: zero) ; iout:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A dense 9-way switch on in[i] % 10 whose cases (and default) only assign constants to a float and an int, stored to separate float and int buffers: the float switch-to-lookup-table shape.
extern "C" __global__ void switch_float_table(const int* in, float* fout, int* iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float f;
    int k;
    switch (in[i] % 10) {
    case 0: f = 1.5f; k = 7; break;
    case 1: f = -0.25f; k = 13; break;
    case 2: f = 3.0e10f; k = -4; break;
    case 3: f = 0.1f; k = 100; break;
    case 4: f = -7.75f; k = 0; break;
    case 5: f = 1.0e-30f; k = 42; break;
    case 6: f = 2.5f; k = -99; break;
    case 7: f = -0.0f; k = 8; break;
    case 8: f = 65504.0f; k = 1 << 20; break;
    default: f = 9.0f; k = -1; break;
    }
    fout[i] = f;
    iout[i] = k;
}
