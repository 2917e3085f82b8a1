// tests/kernels/atomics_int.cu: order-independent integer atomics; returned old values unused.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("atomics_int") {
  auto in = buffer<int32_t>(L, "in");
  auto acc = buffer<int32_t>(L, "acc");
  auto uacc = buffer<uint32_t>(L, "uacc");
  auto wacc = buffer<uint64_t>(L, "wacc");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    acc[0] = wadd(acc[0], v);                                                   // atom.add.u32
    acc[1] = std::min(acc[1], v);                                               // atom.min.s32
    acc[2] = std::max(acc[2], v);                                               // atom.max.s32
    acc[3] = static_cast<int32_t>(static_cast<uint32_t>(acc[3]) & (~(1u << (i & 31)) | static_cast<uint32_t>(v)));
    acc[4] = static_cast<int32_t>(static_cast<uint32_t>(acc[4]) | (1u << (v & 31)));
    acc[5] = static_cast<int32_t>(static_cast<uint32_t>(acc[5]) ^ (static_cast<uint32_t>(v) * 2654435761u));
    acc[6] = wsub(acc[6], v & 15);
    acc[7] = wadd(acc[7], 1);
    uacc[0] = (uacc[0] >= 16u) ? 0u : uacc[0] + 1u;                            // atom.inc.u32 with 16
    uacc[1] = std::max(uacc[1], static_cast<uint32_t>(v));                      // atom.max.u32
    wacc[0] += static_cast<uint64_t>(v & 0xff) << 28;                           // atom.add.u64
  });
}
