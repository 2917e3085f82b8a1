// SIMD video instructions (inline PTX) against the CUDA intrinsics that compute the same thing
// (nvcc 13 expands those into ordinary integer code on sm_80 and later, vabsdiff4 aside):
// out[t] gets bit k set when check k disagrees for thread t's inputs. Regenerate the PTX with
//   nvcc -arch=sm_80 -ptx video_simd.cu -o video-simd.ptx
// (tests/lit/ptxrun/video-simd.test runs it).
#define V3(op, ty, a, b, c)                                                                  \
  ({ unsigned _d;                                                                           \
     asm(op "." ty "." ty "." ty " %0, %1, %2, %3;" : "=r"(_d) : "r"(a), "r"(b), "r"(c)); _d; })
#define VSET(op, ty, cmp, a, b)                                                              \
  ({ unsigned _d;                                                                           \
     asm(op "." ty "." ty "." cmp " %0, %1, %2, %3;" : "=r"(_d) : "r"(a), "r"(b), "r"(0u)); _d; })

extern "C" __global__ void video_simd(const unsigned* in, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  // Odd threads: b differs from a in few bits, so that equal elements and small differences occur.
  const unsigned a = in[2 * t], b = (t & 1) ? a ^ (in[2 * t + 1] & 0x01800100u) : in[2 * t + 1];
  unsigned bad = 0, k = 0;
  auto check = [&](unsigned got, unsigned want) { bad |= (got != want) << k++; };
  check(V3("vadd4", "u32", a, b, 0u), __vadd4(a, b));
  check(V3("vadd4.sat", "s32", a, b, 0u), __vaddss4(a, b));
  check(V3("vadd4.sat", "u32", a, b, 0u), __vaddus4(a, b));
  check(V3("vsub4", "u32", a, b, 0u), __vsub4(a, b));
  check(V3("vsub4.sat", "s32", a, b, 0u), __vsubss4(a, b));
  check(V3("vsub4.sat", "u32", a, b, 0u), __vsubus4(a, b));
  check(V3("vavrg4", "u32", a, b, 0u), __vavgu4(a, b));
  check(V3("vabsdiff4", "u32", a, b, 0u), __vabsdiffu4(a, b));
  check(V3("vabsdiff4", "s32", a, b, 0u), __vabsdiffs4(a, b));
  check(V3("vmin4", "u32", a, b, 0u), __vminu4(a, b));
  check(V3("vmin4", "s32", a, b, 0u), __vmins4(a, b));
  check(V3("vmax4", "u32", a, b, 0u), __vmaxu4(a, b));
  check(V3("vmax4", "s32", a, b, 0u), __vmaxs4(a, b));
  check(V3("vabsdiff4.add", "u32", a, b, 0u), __vsadu4(a, b));
  check(V3("vabsdiff4.add", "s32", a, b, 0u), __vsads4(a, b));
  check(VSET("vset4", "u32", "gt", a, b) * 0xFFu, __vcmpgtu4(a, b));
  check(VSET("vset4", "s32", "lt", a, b) * 0xFFu, __vcmplts4(a, b));
  check(VSET("vset4", "u32", "eq", a, b) * 0xFFu, __vcmpeq4(a, b));
  check(V3("vadd2", "u32", a, b, 0u), __vadd2(a, b));
  check(V3("vadd2.sat", "s32", a, b, 0u), __vaddss2(a, b));
  check(V3("vadd2.sat", "u32", a, b, 0u), __vaddus2(a, b));
  check(V3("vsub2.sat", "s32", a, b, 0u), __vsubss2(a, b));
  check(V3("vavrg2", "u32", a, b, 0u), __vavgu2(a, b));
  check(V3("vabsdiff2", "s32", a, b, 0u), __vabsdiffs2(a, b));
  check(V3("vmin2", "s32", a, b, 0u), __vmins2(a, b));
  check(V3("vmax2", "u32", a, b, 0u), __vmaxu2(a, b));
  check(V3("vabsdiff2.add", "u32", a, b, 0u), __vsadu2(a, b));
  check(VSET("vset2", "s32", "ge", a, b) * 0xFFFFu, __vcmpges2(a, b));
  check(VSET("vset2", "u32", "ne", a, b) * 0xFFFFu, __vcmpne2(a, b));
  out[t] = bad;
}
