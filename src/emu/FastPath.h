// Specialized loops for the most frequent instruction forms (see FastPath.cpp).
#pragma once

#include "Program.h"

namespace ptxopt::emu {

// The loop for `I`, or nullptr when the general path must run it.
FastFn selectFastPath(const DInst& I);

}  // namespace ptxopt::emu
