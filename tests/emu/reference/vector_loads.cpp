// tests/kernels/vector_loads.cu: float4 / int2 elements; v.x * 0.5f + w.w is contracted to fma.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("vector_loads") {
  auto f = buffer<float>(L, "f");
  auto iv = buffer<int32_t>(L, "iv");
  auto fo = buffer<float>(L, "fo");
  auto io = buffer<int32_t>(L, "io");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    int64_t vi = int64_t(i) * 4, wi = int64_t((i + 1) % n) * 4;
    float vx = f[vi], vy = f[vi + 1], vz = f[vi + 2], vw = f[vi + 3];
    float wx = f[wi], wy = f[wi + 1], wz = f[wi + 2], ww = f[wi + 3];
    fo[vi + 0] = vy + wx;
    fo[vi + 1] = vz * wy;
    fo[vi + 2] = vw - wz;
    fo[vi + 3] = std::fma(vx, 0.5f, ww);
    int32_t px = iv[int64_t(i) * 2], py = iv[int64_t(i) * 2 + 1];
    io[int64_t(i) * 2] = wsub(py, px);
    io[int64_t(i) * 2 + 1] = px ^ wshl(py, 3);
  });
}
