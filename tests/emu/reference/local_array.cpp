// tests/kernels/local_array.cu
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("local_array") {
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    Buf<int32_t> arr{};
    int32_t storage[24];
    arr.s = std::span<int32_t>(storage, 24);
    arr.name = "arr (local)";
    int32_t seed = in[i];
    for (int32_t k = 0; k < 24; ++k) arr[k] = wadd(wmul(seed, k + 1), k);
    for (int32_t k = 0; k < 24; ++k) {
      int32_t j = srem(wadd(seed, k * 7), 24);
      int32_t tmp = arr[k];
      arr[k] = arr[j];
      arr[j] = wadd(tmp, 1);
    }
    int32_t idx = srem(in[(i + 1) % n], 24);
    out[i] = wsub(arr[idx], arr[(idx + 5) % 24]);
  });
}
