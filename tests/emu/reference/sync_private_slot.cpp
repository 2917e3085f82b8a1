// tests/kernels/sync_private_slot.cu: every thread reads back its own slot, so the result is a
// function of in[g] and t alone.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("sync_private_slot") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  if (threadsPerBlock(L) != 128) throw std::runtime_error("sync_private_slot needs 128 threads per CTA");
  forEachThread(L, [&](const Thread& t) {
    int32_t g = globalX(t);
    int32_t slot = wadd(wmul(in[g], 7), static_cast<int32_t>(t.tx));
    out[g] = slot ^ 0x5a5a;
  });
}
