// tests/kernels/double_math.cu, following the order of operations of nvcc's PTX (sm_90 and
// sm_75 at the default -O3): fma(x, y, -0.125) + fmin * fmax is contracted into one more fma;
// __dmul_rd is mul.rm.f64; copysign(y, x) is copysign.f64 d, x, y.
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("double_math") {
  auto a = buffer<double>(L, "a");
  auto b = buffer<double>(L, "b");
  auto out = buffer<double>(L, "out");
  auto iout = buffer<int64_t>(L, "iout");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    double x = a[i];
    double y = b[i];
    int64_t o = int64_t(i) * 4, q = int64_t(i) * 2;
    out[o + 0] = (std::sqrt(y) + x / y) + std::sqrt(y * 3.0);
    double f1 = mulAdd(L, minF64(x, y), maxF64(x, -y), std::fma(x, y, -0.125));
    out[o + 1] = (f1 - std::fabs(x)) + mulF64(x, 1.0 / 3.0, Rnd::RM);
    double f2 = ((std::floor(x / 7.0) + std::ceil(x * 0.3)) + std::trunc(x / 11.0)) + std::copysign(y, x);
    out[o + 2] = f2 + std::nearbyint(x * 0.5);
    double f3 = (static_cast<double>(static_cast<float>(x / 3.0)) + static_cast<double>(int64_t(i) << 40)) +
                static_cast<double>(static_cast<float>(y));
    out[o + 3] = f3 + static_cast<double>(wmul(i, -77));
    iout[q + 0] = wadd64(wadd64(static_cast<int64_t>(cvtS32(x * 2.5, Rnd::RN)), cvtS64(x * 1e9, Rnd::RZ)),
                         cvtS64(x * 0.7, Rnd::RM));
    iout[q + 1] = static_cast<int64_t>(f64Bits(x) ^ static_cast<uint64_t>(cvtU32(y * 10.0, Rnd::RP)) ^
                                       static_cast<uint64_t>(cvtS64(x, Rnd::RZ)));
  });
}
