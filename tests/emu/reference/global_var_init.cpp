// tests/kernels/global_var_init.cu: initialised __device__ tables, strings and a pointer table.
#include <cstring>

#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("global_var_init") {
  static const int32_t primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
  static const int16_t weights[5] = {-3, 7, 0, 11, -1};
  static const char message[] = "ptxopt global string table!";
  static const char* const words[4] = {"zero", "one", "two", "three"};
  auto in = buffer<int32_t>(L, "in");
  auto out = buffer<int32_t>(L, "out");
  auto text = buffer<uint8_t>(L, "text");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int32_t v = in[i];
    int32_t w5 = srem(v, 5);
    if (w5 < 0) throw std::runtime_error("global_var_init: negative input indexes weights[] out of bounds");
    out[i] = wadd(wmul(primes[v & 15], weights[w5]), primes[i & 15]);
    const char* w = words[v & 3];
    int32_t len = 0;
    while (len < 8 && w[len] != '\0') ++len;
    text[i] = static_cast<uint8_t>(message[i % static_cast<int32_t>(sizeof(message) - 1)] + len);
  });
}
