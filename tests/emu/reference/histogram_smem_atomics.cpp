// tests/kernels/histogram_smem_atomics.cu: every element below n is counted once, in bin
// in[i] >> 2, whatever the order of the shared and global atomics.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("histogram_smem_atomics") {
  auto in = buffer<uint8_t>(L, "in");
  auto hist = buffer<uint32_t>(L, "hist");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t stride = static_cast<int32_t>(t.nbx * t.ntx);
    for (int32_t i = globalX(t); i < n; i += stride) hist[in[i] >> 2] += 1u;
  });
}
