// The Device (issue #33): memory that outlives launches, modules whose variables keep their
// values, launches from raw parameter blocks.
#include <cstring>

#include "../../src/emu/Machine.h"
#include "TestUtil.h"
#include "ptxopt/emu/Device.h"
#include "ptxopt/emu/LaunchSpec.h"
#include "ptxopt/emu/TensorMap.h"

namespace ptxopt::emu {
namespace {

using test::parseOk;

const char* kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

// A parameter block for `kernel` from one value per parameter (the low slot.size bytes).
std::vector<uint8_t> block(const Device& d, int module, const std::string& kernel, std::vector<uint64_t> values) {
  std::vector<ParamSlot> slots;
  uint64_t size = 0;
  EXPECT_TRUE(d.kernelParams(module, kernel, slots, size));
  EXPECT_EQ(slots.size(), values.size());
  std::vector<uint8_t> out(size, 0);
  for (size_t k = 0; k < slots.size() && k < values.size(); ++k) std::memcpy(out.data() + slots[k].offset, &values[k], std::min<uint64_t>(8, slots[k].size));
  return out;
}

DeviceLaunch launchOf(const std::string& kernel, uint32_t grid, uint32_t blockX, std::vector<uint8_t> params) {
  DeviceLaunch l;
  l.kernel = kernel;
  l.grid.x = grid;
  l.block.x = blockX;
  l.params = std::move(params);
  return l;
}

int load(Device& d, const Module& m) {
  std::string error;
  int id = d.load(m, "test", error);
  EXPECT_GE(id, 0) << error;
  return id;
}

const std::string kVectorAdd = std::string(kHeader) + R"(
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
)";

TEST(Device, VectorAddRoundTrip) {
  auto m = parseOk(kVectorAdd);
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  std::vector<ParamSlot> slots;
  uint64_t size = 0;
  ASSERT_TRUE(d.kernelParams(id, "vadd", slots, size));
  ASSERT_EQ(slots.size(), 4u);
  EXPECT_EQ(slots[0].name, "a");
  EXPECT_EQ(slots[2].offset, 16u);
  EXPECT_EQ(slots[3].offset, 24u);
  EXPECT_EQ(slots[3].size, 4u);
  EXPECT_EQ(size, 28u);
  EXPECT_FALSE(d.kernelParams(id, "nope", slots, size));

  const uint32_t n = 1000;
  std::vector<float> a(n), b(n), c(n, -1);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i);
  }
  uint64_t da = d.allocate(n * 4, "a"), db = d.allocate(n * 4, "b"), dc = d.allocate(n * 4, "c");
  ASSERT_TRUE(da && db && dc);
  EXPECT_EQ(da % 256, 0u);
  EXPECT_EQ(d.bytesInUse(), 3u * n * 4);
  std::string error;
  ASSERT_TRUE(d.write(da, a.data(), n * 4, error)) << error;
  ASSERT_TRUE(d.write(db, b.data(), n * 4, error)) << error;
  for (unsigned jobs : {1u, 4u}) {
    ASSERT_TRUE(d.fill(dc, 0, n * 4, error)) << error;
    RunOptions opts;
    opts.jobs = jobs;
    RunResult r = d.launch(id, launchOf("vadd", (n + 127) / 128, 128, block(d, id, "vadd", {da, db, dc, n})), opts);
    ASSERT_TRUE(r.ok) << r.error << r.fault;
    EXPECT_TRUE(r.buffers.empty());
    EXPECT_GT(r.metrics.warpInstructions, 0u);
    ASSERT_TRUE(d.read(dc, c.data(), n * 4, error)) << error;
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.5f * static_cast<float>(i)) << i;
  }
  // Copies inside device memory; ranges must stay inside one allocation.
  ASSERT_TRUE(d.copy(da, dc, n * 4, error)) << error;
  float x = 0;
  ASSERT_TRUE(d.read(da + 4 * 10, &x, 4, error));
  EXPECT_EQ(x, 15.0f);
  EXPECT_FALSE(d.read(da + 4, c.data(), n * 4, error));
  EXPECT_NE(error.find("past the end of 'a'"), std::string::npos) << error;
  EXPECT_FALSE(d.write(0x10, a.data(), 4, error));
  EXPECT_NE(error.find("not device memory"), std::string::npos) << error;
  EXPECT_EQ(d.allocate(0, "empty"), 0u);
}

// Managed and mapped host memory: the host reaches the bytes at the address kernels use. Under
// AddressSanitizer the window is its shadow memory: no such allocation can be made there.
TEST(Device, HostMappedMemory) {
  auto m = parseOk(kVectorAdd);
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  const uint32_t n = 1000;
  uint64_t before = d.allocate(64, "plain");
  uint64_t da = d.allocateHostMapped(n * 4, "a"), db = d.allocateHostMapped(n * 4, "b"), dc = d.allocateHostMapped(n * 4, "c");
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(da, 0u);
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  EXPECT_EQ(da, 0u);
  return;
#endif
#endif
  ASSERT_TRUE(da && db && dc);
  EXPECT_EQ(da % 4096, 0u);
  EXPECT_GT(da, before);
  EXPECT_TRUE(d.isHostMapped(da + 4, 8));
  EXPECT_FALSE(d.isHostMapped(before, 8));
  EXPECT_FALSE(d.isHostMapped(da + 4 * n - 4, 8));  // runs past the end
  EXPECT_EQ(d.hostMappedAllocations().size(), 3u);
  auto* a = reinterpret_cast<float*>(da);  // the host's own view of device memory
  auto* b = reinterpret_cast<float*>(db);
  auto* c = reinterpret_cast<float*>(dc);
  EXPECT_EQ(c[n - 1], 0.0f);  // zeroed
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f;
  }
  RunResult r = d.launch(id, launchOf("vadd", (n + 127) / 128, 128, block(d, id, "vadd", {da, db, dc, n})), RunOptions{});
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], static_cast<float>(i) + 2.0f) << i;
  std::string error;
  float x = 0;
  ASSERT_TRUE(d.read(dc + 8, &x, 4, error)) << error;
  EXPECT_EQ(x, 4.0f);
  // A second device in step: a plain allocation at the same address; taken addresses refused.
  Device twin;
  EXPECT_EQ(twin.allocateAt(da, n * 4, "a"), da);
  EXPECT_EQ(twin.allocateAt(da, 8, "again"), 0u);
  EXPECT_EQ(twin.allocateAt(da + 1, 8, "unaligned"), 0u);
  EXPECT_FALSE(twin.isHostMapped(da, 4));
  EXPECT_TRUE(d.release(da));
  EXPECT_FALSE(d.isHostMapped(da, 4));
}

TEST(Device, GlobalVariablesPersist) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .global .align 4 .u32 counter = 5;
.visible .global .align 4 .u32 arr[4] = {1, 2, 3, 4};
.visible .global .align 8 .u64 arrp = generic(arr);
.visible .entry bump()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  atom.global.add.u32 %r1, [counter], 1;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  ld.global.u64 %rd1, [arrp];
  ld.u32 %r3, [%rd1+4];
  add.u32 %r3, %r3, 10;
  st.u32 [%rd1+4], %r3;
DONE:
  ret;
}
)");
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  uint64_t counter = 0, size = 0, arr = 0, arrSize = 0, arrp = 0, arrpSize = 0;
  ASSERT_TRUE(d.symbol(id, "counter", counter, size));
  EXPECT_EQ(size, 4u);
  ASSERT_TRUE(d.symbol(id, "arr", arr, arrSize));
  EXPECT_EQ(arrSize, 16u);
  ASSERT_TRUE(d.symbol(id, "arrp", arrp, arrpSize));
  EXPECT_FALSE(d.symbol(id, "missing", counter, size));
  EXPECT_EQ(d.bytesInUse(), 0u);
  EXPECT_FALSE(d.release(counter));  // variables are not allocations
  std::string error;
  uint64_t p = 0;
  ASSERT_TRUE(d.read(arrp, &p, 8, error)) << error;
  EXPECT_EQ(p, arr);  // the initializer's address
  uint32_t v = 0;
  ASSERT_TRUE(d.read(counter, &v, 4, error)) << error;
  EXPECT_EQ(v, 5u);
  for (int launch = 1; launch <= 2; ++launch) {
    RunResult r = d.launch(id, launchOf("bump", 2, 32, {}), RunOptions{});
    ASSERT_TRUE(r.ok) << r.error << r.fault;
    ASSERT_TRUE(d.read(counter, &v, 4, error)) << error;
    EXPECT_EQ(v, 5u + 64u * static_cast<unsigned>(launch));
  }
  uint32_t vals[4];
  ASSERT_TRUE(d.read(arr, vals, 16, error)) << error;
  EXPECT_EQ(vals[0], 1u);
  EXPECT_EQ(vals[1], 2u + 40u);  // two CTAs in each of two launches
  EXPECT_EQ(vals[3], 4u);
  // The host writes a variable between launches.
  v = 1000;
  ASSERT_TRUE(d.write(counter, &v, 4, error)) << error;
  ASSERT_TRUE(d.launch(id, launchOf("bump", 1, 32, {}), RunOptions{}).ok);
  ASSERT_TRUE(d.read(counter, &v, 4, error)) << error;
  EXPECT_EQ(v, 1032u);
}

TEST(Device, ConstVariablesWrittenByTheHost) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .global .align 4 .u32 g;
.visible .const .align 4 .u32 factor;
.visible .const .align 4 .u32 table[4] = {10, 20, 30, 40};
.visible .const .align 8 .u64 gaddr = g;
.visible .entry scale(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, table;
  add.u64 %rd4, %rd3, %rd2;
  ld.const.u32 %r2, [%rd4];
  ld.const.u32 %r3, [factor];
  mul.lo.u32 %r4, %r2, %r3;
  cvta.const.u64 %rd5, %rd4;
  ld.u32 %r5, [%rd5];
  add.u32 %r4, %r4, %r5;
  add.u64 %rd6, %rd1, %rd2;
  st.global.u32 [%rd6], %r4;
  ret;
}
)");
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  uint64_t factor = 0, table = 0, size = 0;
  ASSERT_TRUE(d.symbol(id, "factor", factor, size));
  EXPECT_EQ(size, 4u);
  ASSERT_TRUE(d.symbol(id, "table", table, size));
  EXPECT_EQ(size, 16u);
  std::string error;
  uint32_t t[4];
  ASSERT_TRUE(d.read(table, t, 16, error)) << error;
  EXPECT_EQ(t[2], 30u);
  uint64_t g = 0, gaddr = 0, got = 0;
  ASSERT_TRUE(d.symbol(id, "g", g, size));
  ASSERT_TRUE(d.symbol(id, "gaddr", gaddr, size));
  ASSERT_TRUE(d.read(gaddr, &got, 8, error)) << error;
  EXPECT_EQ(got, g);  // an address in a .const initializer
  uint32_t f = 3;
  ASSERT_TRUE(d.write(factor, &f, 4, error)) << error;
  uint32_t t1 = 100;
  ASSERT_TRUE(d.write(table + 4, &t1, 4, error)) << error;  // cudaMemcpyToSymbol with an offset
  // A range over two variables is not one variable.
  uint8_t eight[8] = {};
  EXPECT_FALSE(d.write(table - 4, eight, 8, error));
  uint64_t out = d.allocate(16, "out");
  RunResult r = d.launch(id, launchOf("scale", 1, 4, block(d, id, "scale", {out})), RunOptions{});
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  uint32_t o[4];
  ASSERT_TRUE(d.read(out, o, 16, error)) << error;
  EXPECT_EQ(o[0], 10u * 3 + 10);
  EXPECT_EQ(o[1], 100u * 3 + 100);
  EXPECT_EQ(o[3], 40u * 3 + 40);
}

TEST(Device, StructByValue) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .entry st(.param .align 8 .b8 s[24], .param .u32 x)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<3>;
  ld.param.u64 %rd1, [s];
  ld.param.u32 %r1, [s+8];
  ld.param.u32 %r2, [s+12];
  ld.param.f64 %fd1, [s+16];
  ld.param.u32 %r3, [x];
  add.u32 %r4, %r1, %r2;
  add.u32 %r4, %r4, %r3;
  cvt.rzi.u32.f64 %r5, %fd1;
  st.global.u32 [%rd1], %r4;
  st.global.u32 [%rd1+4], %r5;
  ret;
}
)");
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  std::vector<ParamSlot> slots;
  uint64_t size = 0;
  ASSERT_TRUE(d.kernelParams(id, "st", slots, size));
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[0].offset, 0u);
  EXPECT_EQ(slots[0].size, 24u);
  EXPECT_EQ(slots[0].align, 8u);
  EXPECT_EQ(slots[1].offset, 24u);
  EXPECT_EQ(size, 28u);
  uint64_t out = d.allocate(8, "out");
  std::vector<uint8_t> params(size, 0);
  struct {
    uint64_t p;
    uint32_t a, b;
    double c;
  } s{out, 7, 35, 12.75};
  static_assert(sizeof s == 24);
  std::memcpy(params.data(), &s, 24);
  uint32_t x = 100;
  std::memcpy(params.data() + 24, &x, 4);
  RunResult r = d.launch(id, launchOf("st", 1, 1, params), RunOptions{});
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  uint32_t o[2];
  std::string error;
  ASSERT_TRUE(d.read(out, o, 8, error)) << error;
  EXPECT_EQ(o[0], 142u);
  EXPECT_EQ(o[1], 12u);
}

TEST(Device, TwoModulesShareMemory) {
  auto a = parseOk(std::string(kHeader) + R"(
.visible .global .align 4 .u32 g = 1;
.visible .entry produce(.param .u64 buf)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  ld.global.u32 %r2, [g];
  mul.lo.u32 %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)");
  auto b = parseOk(std::string(kHeader) + R"(
.visible .global .align 4 .u32 g = 1000;
.visible .entry consume(.param .u64 buf)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  ld.global.u32 %r2, [g];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  add.u32 %r3, %r3, %r2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)");
  ASSERT_TRUE(a && b);
  Device d;
  int ia = load(d, *a), ib = load(d, *b);
  EXPECT_EQ(ia, 0);
  EXPECT_EQ(ib, 1);
  uint64_t ga = 0, gb = 0, size = 0;
  ASSERT_TRUE(d.symbol(ia, "g", ga, size));
  ASSERT_TRUE(d.symbol(ib, "g", gb, size));
  EXPECT_NE(ga, gb);
  std::string error;
  uint32_t two = 2;
  ASSERT_TRUE(d.write(ga, &two, 4, error)) << error;
  uint64_t buf = d.allocate(64 * 4, "buf");
  ASSERT_TRUE(d.launch(ia, launchOf("produce", 1, 64, block(d, ia, "produce", {buf})), RunOptions{}).ok);
  RunResult r = d.launch(ib, launchOf("consume", 1, 64, block(d, ib, "consume", {buf})), RunOptions{});
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  std::vector<uint32_t> out(64);
  ASSERT_TRUE(d.read(buf, out.data(), 64 * 4, error)) << error;
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(out[i], 2 * i + 1000) << i;
  // A kernel of one module does not see the other's kernels.
  EXPECT_FALSE(d.launch(ib, launchOf("produce", 1, 1, block(d, ia, "produce", {buf})), RunOptions{}).error.empty());
}

const std::string kReadAt = std::string(kHeader) + R"(
.visible .entry readAt(.param .u64 p, .param .u64 i, .param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [i];
  ld.param.u64 %rd3, [out];
  shl.b64 %rd4, %rd2, 2;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.u32 %r1, [%rd5];
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

TEST(Device, FaultsOutsideAllocations) {
  auto m = parseOk(kReadAt);
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  uint64_t p = d.allocate(64, "p"), out = d.allocate(4, "out");
  std::string error;
  uint32_t v = 77;
  ASSERT_TRUE(d.write(p + 60, &v, 4, error)) << error;
  RunResult ok = d.launch(id, launchOf("readAt", 1, 1, block(d, id, "readAt", {p, 15, out})), RunOptions{});
  ASSERT_TRUE(ok.ok) << ok.error << ok.fault;
  ASSERT_TRUE(d.read(out, &v, 4, error));
  EXPECT_EQ(v, 77u);
  RunResult past = d.launch(id, launchOf("readAt", 1, 1, block(d, id, "readAt", {p, 16, out})), RunOptions{});
  EXPECT_FALSE(past.ok);
  EXPECT_TRUE(past.error.empty());
  EXPECT_NE(past.fault.find("out-of-bounds load of 4 byte(s)"), std::string::npos) << past.fault;
  EXPECT_NE(past.fault.find("past the end of 'p'"), std::string::npos) << past.fault;
  EXPECT_EQ(past.faultKind, FaultKind::Address);

  EXPECT_FALSE(d.release(p + 4));
  EXPECT_TRUE(d.release(p));
  EXPECT_FALSE(d.release(p));
  EXPECT_EQ(d.bytesInUse(), 4u);
  EXPECT_FALSE(d.read(p, &v, 4, error));
  RunResult freed = d.launch(id, launchOf("readAt", 1, 1, block(d, id, "readAt", {p, 0, out})), RunOptions{});
  EXPECT_FALSE(freed.ok);
  EXPECT_NE(freed.fault.find("out-of-bounds load"), std::string::npos) << freed.fault;
  EXPECT_NE(freed.fault.find("which was freed"), std::string::npos) << freed.fault;
  EXPECT_EQ(freed.faultKind, FaultKind::Address);
  // A new allocation does not take the freed range at once.
  uint64_t q = d.allocate(64, "q");
  EXPECT_NE(q, p);
  EXPECT_GT(q, out);
}

// The global window: addresses only go up until it is used up; then freed gaps are reused.
TEST(Device, GlobalWindowRunsOut) {
  GlobalMemory mem(kGlobalBase + 4096);
  uint64_t a = mem.allocate(1024, 256, "a"), b = mem.allocate(1024, 256, "b"), c = mem.allocate(1024, 256, "c");
  EXPECT_EQ(a, kGlobalBase);
  EXPECT_EQ(b, kGlobalBase + 1280);
  EXPECT_EQ(c, kGlobalBase + 2560);
  EXPECT_EQ(mem.allocate(1024, 256, "d"), 0u);
  EXPECT_TRUE(mem.release(b));
  EXPECT_EQ(mem.find(b, 4), nullptr);
  EXPECT_NE(mem.describe(b).find("which was freed"), std::string::npos) << mem.describe(b);
  uint64_t e = mem.allocate(1024, 256, "e");
  EXPECT_EQ(e, b);
  EXPECT_NE(mem.find(e + 1020, 4), nullptr);
  EXPECT_EQ(mem.find(e + 1020, 8), nullptr);
  EXPECT_EQ(mem.allocate(2048, 256, "f"), 0u);
  EXPECT_EQ(mem.bytesIn(GlobalMemory::Kind::Buffer), 3072u);
  uint64_t v = mem.allocate(8, 8, "v", GlobalMemory::Kind::Variable);
  EXPECT_EQ(v, kGlobalBase + 3840);  // the room left after 'c'
  EXPECT_EQ(mem.allocate(8, 8, "w"), 0u);
  EXPECT_FALSE(mem.release(v));  // a variable is not a buffer
  EXPECT_FALSE(mem.release(a, GlobalMemory::Kind::Variable));
  EXPECT_TRUE(mem.release(v, GlobalMemory::Kind::Variable));
}

TEST(Device, BadLaunchesAreErrors) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .entry fixed(.param .u64 p) .reqntid 64, 1, 1
{
  ret;
}
)" + kReadAt.substr(std::strlen(kHeader)));
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  auto err = [&](int module, const DeviceLaunch& l) {
    RunResult r = d.launch(module, l, RunOptions{});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.fault.empty()) << r.fault;
    return r.error;
  };
  std::vector<uint8_t> p24(24, 0), p8(8, 0);
  EXPECT_NE(err(id, launchOf("nope", 1, 1, p24)).find("no .entry named 'nope'"), std::string::npos);
  EXPECT_NE(err(id, launchOf("readAt", 1, 1, p8)).find("8 bytes for kernel 'readAt''s 24-byte parameter block"), std::string::npos);
  EXPECT_NE(err(id, launchOf("readAt", 0, 1, p24)).find("zero dimension"), std::string::npos);
  EXPECT_NE(err(id, launchOf("readAt", 1, 0, p24)).find("zero dimension"), std::string::npos);
  EXPECT_NE(err(id, launchOf("readAt", 1, 1025, p24)).find("at most 1024"), std::string::npos);
  DeviceLaunch big = launchOf("readAt", 1, 1, p24);
  big.dynamicShared = 1u << 20;
  EXPECT_NE(err(id, big).find("dynamic shared memory"), std::string::npos);
  EXPECT_NE(err(id, launchOf("fixed", 1, 32, p8)).find(".reqntid"), std::string::npos);
  EXPECT_NE(err(7, launchOf("fixed", 1, 64, p8)).find("no module 7"), std::string::npos);
  EXPECT_TRUE(d.launch(id, launchOf("fixed", 2, 64, p8), RunOptions{}).ok);
}

TEST(Device, RunOptions) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .entry racy(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  st.global.u32 [%rd1], %r1;
EVEN:
  ret;
}
)");
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  uint64_t p = d.allocate(4, "p");
  RunOptions opts;
  opts.checkRaces = true;
  opts.branchProfile = true;
  opts.perLineMetrics = true;
  RunResult r = d.launch(id, launchOf("racy", 2, 64, block(d, id, "racy", {p})), opts);
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  ASSERT_FALSE(r.races.empty());
  EXPECT_EQ(r.races[0].space, "global");
  EXPECT_FALSE(r.metrics.branchOutcomes.empty());
  EXPECT_FALSE(r.metrics.perLine.empty());
  EXPECT_EQ(r.metrics.divergentBranches, 4u);
}

TEST(Device, Printf) {
  auto m = parseOk(std::string(kHeader) + R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 fmt[12] = {116, 105, 100, 32, 37, 100, 32, 37, 100, 10, 0, 0};
.visible .entry hello(.param .u32 k)
{
  .local .align 8 .b8 depot[8];
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  mov.u64 %rd1, depot;
  cvta.local.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [k];
  st.local.u32 [%rd1], %r1;
  st.local.u32 [%rd1+4], %r2;
  mov.u64 %rd3, fmt;
  cvta.global.u64 %rd4, %rd3;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd4;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r3, [retval0];
  }
  ret;
}
)");
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  RunResult r = d.launch(id, launchOf("hello", 1, 2, block(d, id, "hello", {9})), RunOptions{});
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  EXPECT_EQ(r.stdoutText, "tid 0 9\ntid 1 9\n");
}

TEST(Device, LoadRejectsBadModules) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .global .align 8 .u64 p = generic(nowhere);
.visible .entry k()
{
  ret;
}
)");
  if (!m) return;  // the parser may already refuse the unknown name
  Device d;
  std::string error;
  EXPECT_EQ(d.load(*m, "bad", error), -1);
  EXPECT_FALSE(error.empty());
}

// A fault that is not a memory access (here a trap) is told apart from an illegal address: the
// CUDA runtime stand-in maps the two to different errors.
TEST(Device, TrapIsNotAnAddressFault) {
  auto m = parseOk(std::string(kHeader) + R"(
.visible .entry stop()
{
  trap;
  ret;
}
)");
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  RunResult r = d.launch(id, launchOf("stop", 1, 32, block(d, id, "stop", {})), RunOptions{});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.fault.find("trap executed"), std::string::npos) << r.fault;
  EXPECT_EQ(r.faultKind, FaultKind::Other);
}


// Texture objects (issue #34): handles, their checks, a fetch through a Device, a destroyed
// handle, and the launch spec's texture parameter read back from its JSON.
const std::string kTex2D = std::string(kHeader) + R"(
.visible .entry fetch(.param .u64 t, .param .u64 out, .param .f32 x, .param .f32 y)
{
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [out];
  ld.param.f32 %f1, [x];
  ld.param.f32 %f2, [y];
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
  st.global.v4.f32 [%rd2], {%f3, %f4, %f5, %f6};
  ret;
}
)";

TEST(Device, TextureObjects) {
  auto m = parseOk(kTex2D);
  ASSERT_TRUE(m);
  Device d;
  int id = load(d, *m);
  // A 2x2 float2 texture, pitched: rows 32 bytes apart.
  uint64_t texels = d.allocate(64, "texels"), out = d.allocate(16, "out");
  const float rows[2][8] = {{1, 10, 2, 20, 0, 0, 0, 0}, {3, 30, 4, 40, 0, 0, 0, 0}};
  std::string error;
  ASSERT_TRUE(d.write(texels, rows, 64, error)) << error;
  TextureDesc t;
  t.resource = TexResource::Pitch2D;
  t.base = texels;
  t.width = 2, t.height = 2, t.dims = 2, t.pitch = 32, t.channels = 2;
  t.filter = TexFilter::Linear;
  uint64_t h = d.createTexture(t, error);
  ASSERT_EQ(h, 1u) << error;
  auto launchAt = [&](uint64_t handle, float x, float y) {
    uint32_t xb, yb;
    std::memcpy(&xb, &x, 4), std::memcpy(&yb, &y, 4);
    return d.launch(id, launchOf("fetch", 1, 1, block(d, id, "fetch", {handle, out, xb, yb})), RunOptions{});
  };
  RunResult r = launchAt(h, 1.0f, 1.0f);  // the centre: the mean of the four texels
  ASSERT_TRUE(r.ok) << r.error << r.fault;
  float got[4];
  ASSERT_TRUE(d.read(out, got, 16, error));
  EXPECT_EQ(got[0], 2.5f);
  EXPECT_EQ(got[1], 25.0f);
  EXPECT_EQ(got[2], 0.0f);
  EXPECT_EQ(got[3], 1.0f);
  ASSERT_NE(d.texture(h), nullptr);
  EXPECT_EQ(d.texture(h)->pitch, 32u);

  // Refusals: texels past their allocation, integers filtered linearly.
  TextureDesc past = t;
  past.height = 3;
  EXPECT_EQ(d.createTexture(past, error), 0u);
  EXPECT_NE(error.find("do not lie in one allocation"), std::string::npos) << error;
  TextureDesc ints = t;
  ints.kind = TexChannelKind::Signed;
  EXPECT_EQ(d.createTexture(ints, error), 0u);
  EXPECT_NE(error.find("linear filtering"), std::string::npos) << error;

  // A destroyed handle is told from one that never was; handles are not reused.
  EXPECT_TRUE(d.destroyTexture(h));
  EXPECT_FALSE(d.destroyTexture(h));
  EXPECT_EQ(d.texture(h), nullptr);
  r = launchAt(h, 1.0f, 1.0f);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.fault.find("texture handle 0x1 names a destroyed object"), std::string::npos) << r.fault;
  r = launchAt(7, 1.0f, 1.0f);
  EXPECT_NE(r.fault.find("texture handle 0x7 is not a texture object"), std::string::npos) << r.fault;
  EXPECT_EQ(d.createTexture(t, error), 2u) << error;
  // Texels freed under a live texture fault at the fetch.
  ASSERT_TRUE(d.release(texels));
  r = launchAt(2, 0.5f, 0.5f);
  EXPECT_NE(r.fault.find("are not in device memory"), std::string::npos) << r.fault;
}

TEST(LaunchSpec, TextureParameterRoundTrip) {
  const std::string text = R"({"grid": [1], "block": [1], "params": [
    {"name": "t", "texture": {"type": "u8", "channels": 4, "extent": [8, 4, 3], "layered": true,
      "resource": "array", "init": "iota", "filter": "linear", "address": ["wrap", "mirror"],
      "normalized_coords": true, "read": "normalized_float", "border_color": [0.5, 0, 0, 1]}}]})";
  LaunchSpec a, b;
  std::string error;
  ASSERT_TRUE(parseLaunchSpec(text, "a.json", a, error)) << error;
  ASSERT_EQ(a.params.size(), 1u);
  const TextureDesc& t = a.params[0].texture;
  EXPECT_EQ(a.params[0].kind, ParamSpec::Kind::Texture);
  EXPECT_EQ(t.dims, 2);
  EXPECT_TRUE(t.layered);
  EXPECT_EQ(t.depth, 3u);
  EXPECT_EQ(a.params[0].count, 4u * 8 * 4 * 3);
  EXPECT_EQ(t.addressMode[1], TexAddressMode::Mirror);
  EXPECT_EQ(t.addressMode[2], TexAddressMode::Mirror);  // the last mode given repeats
  const std::string json = launchSpecToJson(a);
  ASSERT_TRUE(parseLaunchSpec(json, "b.json", b, error)) << error << "\n" << json;
  EXPECT_EQ(launchSpecToJson(b), json);
  EXPECT_EQ(std::memcmp(b.params[0].texture.borderColor, t.borderColor, sizeof t.borderColor), 0);
  EXPECT_EQ(describeTexture(b.params[0].texture), "2D layered u8x4 array 8x4x3");
}

TEST(LaunchSpec, TensorMapParameterRoundTrip) {
  const std::string text = R"({"grid": [1], "block": [1], "params": [
    {"name": "in", "buffer": {"type": "f32", "count": 4096}},
    {"name": "m", "tensormap": {"buffer": "in", "dims": [64, 8, 8], "strides": [256, 2048], "box": [16, 4, 2]}},
    {"name": "p", "tensormap": {"buffer": "in", "dims": [64], "box": [8]}}]})";
  LaunchSpec a, b;
  std::string error;
  ASSERT_TRUE(parseLaunchSpec(text, "a.json", a, error)) << error;
  ASSERT_EQ(a.params.size(), 3u);
  const TensorMapSpec& m = a.params[1].tensorMap;
  EXPECT_EQ(a.params[1].kind, ParamSpec::Kind::TensorMap);
  EXPECT_EQ(m.buffer, "in");
  EXPECT_EQ(m.rank, 3u);
  EXPECT_EQ(m.strides[1], 2048u);
  EXPECT_EQ(m.box[2], 2u);
  const std::string json = launchSpecToJson(a);
  ASSERT_TRUE(parseLaunchSpec(json, "b.json", b, error)) << error << "\n" << json;
  EXPECT_EQ(launchSpecToJson(b), json);
  EXPECT_EQ(b.params[2].tensorMap.rank, 1u);
  // Strides: one fewer than the dims.
  const std::string bad = R"({"grid": [1], "block": [1], "params": [{"name": "m", "tensormap": {"buffer": "in", "dims": [64, 8], "strides": [], "box": [16, 4]}}]})";
  EXPECT_FALSE(parseLaunchSpec(bad, "c.json", b, error));
  EXPECT_EQ(error, "c.json: params[0].tensormap.strides: expected 1 strides in bytes (dimensions 1 and up)");
}

TEST(TensorMap, EncodeDecodeAndChecks) {
  TensorMapDesc d;
  d.base = 0x100000100;
  d.rank = 2;
  d.elemBytes = 4;
  d.dims = {20, 12, 0, 0, 0};
  d.strides = {80, 0, 0, 0};
  d.box = {8, 4, 0, 0, 0};
  EXPECT_EQ(checkTensorMap(d), "");
  EXPECT_EQ(d.boxBytes(), 128u);
  uint8_t bytes[kTensorMapBytes];
  encodeTensorMap(d, bytes);
  TensorMapDesc e;
  ASSERT_TRUE(decodeTensorMap(bytes, e));
  EXPECT_EQ(e.base, d.base);
  EXPECT_EQ(e.dims, d.dims);
  EXPECT_EQ(e.strides, d.strides);
  EXPECT_EQ(e.box, d.box);
  bytes[0] ^= 1;  // not a tensor map any more
  EXPECT_FALSE(decodeTensorMap(bytes, e));
  d.box[0] = 3;
  EXPECT_EQ(checkTensorMap(d), "the innermost box (12 bytes) is not a multiple of 16 bytes");
  d.box[0] = 8;
  d.strides[0] = 84;
  EXPECT_EQ(checkTensorMap(d), "dimension 1: stride 84 is not a multiple of 16 below 2^40");
}

}  // namespace
}  // namespace ptxopt::emu
