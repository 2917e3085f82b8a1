// tests/kernels/atomic_cas_loop.cu: CAS loops computing a float max and a wrapping u32 product.
// Both are order-independent: the max of all inputs (compared with float <, so the stored bits
// are those of the largest input) and the product mod 2^32.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("atomic_cas_loop") {
  auto in = buffer<float>(L, "in");
  auto vals = buffer<uint32_t>(L, "vals");
  auto fmax = buffer<float>(L, "fmax");
  auto prod = buffer<uint32_t>(L, "prod");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float v = in[i];
    if (std::isnan(v) || v == 0.0f)
      throw std::runtime_error("atomic_cas_loop: a NaN or zero input would make the max order-dependent");
    if (fmax[0] < v) fmax[0] = v;  // while (old < v) CAS(old -> v)
    prod[0] = prod[0] * (vals[i] | 1u);
  });
}
