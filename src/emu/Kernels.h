// The loops of the data instructions (Kernels.cpp).
#pragma once

#include "Program.h"

namespace ptxopt::emu {

// Sets I.general (and I.fast: a specialized loop, or the general one) for a data instruction
// whose operands and form the decoder has filled in; leaves both null for other families.
void selectKernels(DInst& I);

// Whether the emulator computes float operation `op` on type `t` (f32, f64, f16 and bf16 forms).
bool floatOpSupported(ArithOp op, ScalarType t);

// Whether the host CPU has a fused multiply-add instruction (x86-64: FMA3), for the loops that
// are compiled twice (Kernels.cpp's fma, Mma.cpp's multiply-accumulate) and chosen at run time.
bool hostHasFma();

}  // namespace ptxopt::emu
