// kernel: clang_switch_in_loop
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(12,0,100000)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: tests/kernels/switch_in_loop.cu compiled by clang, which keeps the 16-trip loop around
// the compare tree; once switch-opt has predicated the switch, ptxas unrolls the loop
// completely (the estimate's bound from the SASS control flow, docs/QUALITY.md).
#include "shim.h"

#define switch_in_loop clang_switch_in_loop
#include "../switch_in_loop.cu"
