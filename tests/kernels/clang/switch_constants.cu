// kernel: clang_switch_constants
// launch: grid=[2,1,1] block=[64,1,1] dynamic_shared=0
// params: in:in i32[128] (init: random(13,0,40)) ; out:out i32[128] (init: zero) ; n: scalar i32 = 128
// what: tests/kernels/switch_constants.cu compiled by clang. LLVM assigns the first case's
// constants in the test block that branches to the join; switch-opt moves them into a case
// block of their own and then builds a value table.
#include "shim.h"

#define switch_constants clang_switch_constants
#include "../switch_constants.cu"
