// kernel: nested_state_machine
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(351,-1000,1000)) ; out:out i32[128] (init: zero) ; state_out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: A per-thread four-state machine run for 8 steps (a uniform, not unrolled loop); each step reads in[(i + 5k + 1) % n] and branches on the thread's state with data-dependent nested ifs choosing the next state and the update of an accumulator.
extern "C" __global__ void nested_state_machine(const int* in, int* out, int* state_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int state = in[i] & 3;
    int acc = 0;
#pragma unroll 1
    for (int k = 0; k < 8; ++k) {
        int d = in[(i + 5 * k + 1) % n];
        if (state == 0) {
            if (d > 0) {
                state = 1;
                acc += d;
            } else if (d < -500) {
                state = 3;
                acc -= 7;
            } else {
                acc ^= k;
            }
        } else if (state == 1) {
            if (d & 1) {
                if (acc > 1000) state = 2;
                else acc += d >> 2;
            } else {
                state = 0;
            }
        } else if (state == 2) {
            acc = acc * 3 - d;
            if (d < 0) state = 3;
        } else {
            if (d > 500) {
                state = 0;
                acc = acc / 2;
            } else {
                acc -= 1;
            }
        }
    }
    out[i] = acc;
    state_out[i] = state;
}
