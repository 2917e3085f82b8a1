// tests/kernels/float_math.cu, in the order of nvcc's PTX (default -O3): fmaf(x, y, -1.25f) +
// fminf * fmaxf is contracted into a second fma; divisions by constants stay div.rn.f32.
//
// out[5*i + 1] = rsqrtf(y) * __expf(x * 0.05f) + __fdividef(x, y) comes from rsqrt.approx.f32,
// ex2.approx.f32 and div.approx.f32, which the GPU computes with implementation-specific
// errors; the value written here uses correctly rounded stand-ins and is excluded from the
// comparison (specs/float_math.compare.json).
#include "RefUtil.h"

using namespace ptxopt::ref;

PTXOPT_REFERENCE("float_math") {
  auto a = buffer<float>(L, "a");
  auto b = buffer<float>(L, "b");
  auto out = buffer<float>(L, "out");
  auto iout = buffer<int32_t>(L, "iout");
  const int32_t n = L.scalar<int32_t>("n");
  forEachThread(L, [&](const Thread& t) {
    int32_t i = globalX(t);
    if (i >= n) return;
    float x = a[i];
    float y = b[i];
    int64_t o = int64_t(i) * 5;
    out[o + 0] = std::sqrt(y) + x / y;
    {  // approximate: excluded from the comparison
      float rsq = static_cast<float>(1.0 / std::sqrt(static_cast<double>(y)));
      float e = static_cast<float>(std::exp2(static_cast<double>((x * 0.05f) * 1.44269502162933349609375f)));
      float q = x / y;
      out[o + 1] = std::fma(rsq, e, q);
    }
    out[o + 2] = std::fabs(x) + mulAdd(L, minF32(x, y), maxF32(x, -y), std::fma(x, y, -1.25f));
    out[o + 3] = ((roundF32(x / 3.0f, Rnd::RM) + roundF32(x * 0.3f, Rnd::RP)) + roundF32(x / 7.0f, Rnd::RZ)) +
                 roundF32(x * 0.5f, Rnd::RN);
    float s = static_cast<float>(wmul(i, 1234567)) + u32ToF32(0xfffffff0u - static_cast<uint32_t>(i), Rnd::RZ);
    s = s + satF32(x * 0.01f);
    s = s + mulF32(x, y, Rnd::RZ);
    out[o + 4] = s + addF32(x, y, Rnd::RM);
    float x15 = x * 1.5f;
    iout[o + 0] = cvtS32(x15, Rnd::RN);
    iout[o + 1] = cvtS32(x15, Rnd::RZ);
    iout[o + 2] = cvtS32(x15, Rnd::RM);
    iout[o + 3] = cvtS32(x15, Rnd::RP);
    int32_t bitsRem = srem(static_cast<int32_t>(f32Bits(x)), 1000);
    iout[o + 4] = wadd(wadd(static_cast<int32_t>(cvtU32(std::fabs(x) * 1000.0f, Rnd::RN)), cvtS32(x * 3.7f, Rnd::RZ)),
                       bitsRem);
  });
}
