// The driver: draws the size and the launch, writes the kernel's prologue (pointers, thread
// numbers, the long-lived variables, initialized shared rows and local array), its body and
// its epilogue (every variable to the thread's own out slots), and assembles the module.
#include <algorithm>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

std::optional<KernelSize> parseKernelSize(std::string_view text) {
  if (text == "small") return KernelSize::Small;
  if (text == "medium") return KernelSize::Medium;
  if (text == "large") return KernelSize::Large;
  if (text == "random") return KernelSize::Random;
  return std::nullopt;
}

const char* kernelSizeName(KernelSize size) {
  switch (size) {
    case KernelSize::Small: return "small";
    case KernelSize::Medium: return "medium";
    case KernelSize::Large: return "large";
    case KernelSize::Random: return "random";
  }
  return "random";
}

Gen::Gen(uint64_t s, const GeneratorOptions& options) : rng(s), opts(options), seed(s) {}

namespace {

// Indices of the scalar parameters, after the seven pointers (inI, inF, inD, out, acc, acc64,
// scr; the spec lists them the same way).
constexpr unsigned kParamN = 7, kParamM = 8, kParamF = 9, kParamL = 10;

}  // namespace

void Gen::kernelPrologue() {
  Function& f = *fn_;
  Env& e = f.env;
  pushScope();
  Value* ptrs[] = {&e.inI, &e.inF, &e.inD, nullptr, &e.acc, &e.acc64, &e.scr};
  Value out;
  for (unsigned k = 0; k < 7; ++k) {
    if (lean && k != 0 && k != 3) continue;  // a lean kernel reads inI and writes out, nothing else
    Value raw = newReg(Kind::B64, Uni::Cta);
    emit(fmt::format("ld.param.u64 \t{}, [{}_param_{}]", raw.text, f.name, k));
    Value g = newReg(Kind::B64, Uni::Cta);
    emit(fmt::format("cvta.to.global.u64 \t{}, {}", g.text, raw.text));
    if (ptrs[k]) *ptrs[k] = g;
    else out = g;
  }
  // Thread numbers.
  e.tid = newReg(Kind::B32, Uni::Div);
  e.ntid = newReg(Kind::B32, Uni::Cta);
  if (blockY > 1) {
    Value x = newReg(Kind::B32, Uni::Div), y = newReg(Kind::B32, Uni::Warp), nx = newReg(Kind::B32, Uni::Cta),
          ny = newReg(Kind::B32, Uni::Cta);
    emit(fmt::format("mov.u32 \t{}, %tid.x", x.text));
    emit(fmt::format("mov.u32 \t{}, %tid.y", y.text));
    emit(fmt::format("mov.u32 \t{}, %ntid.x", nx.text));
    emit(fmt::format("mov.u32 \t{}, %ntid.y", ny.text));
    emit(fmt::format("mad.lo.s32 \t{}, {}, {}, {}", e.tid.text, y.text, nx.text, x.text));
    emit(fmt::format("mul.lo.s32 \t{}, {}, {}", e.ntid.text, nx.text, ny.text));
    define(x, false);
    define(y, false);  // %tid.y is the same in a warp when ntid.x is a multiple of 32
    shape("launch.2d");
  } else {
    emit(fmt::format("mov.u32 \t{}, %tid.x", e.tid.text));
    emit(fmt::format("mov.u32 \t{}, %ntid.x", e.ntid.text));
  }
  e.cta = newReg(Kind::B32, Uni::Cta);
  emit(fmt::format("mov.u32 \t{}, %ctaid.x", e.cta.text));
  e.ctaBase = newReg(Kind::B32, Uni::Cta);
  emit(fmt::format("mul.lo.s32 \t{}, {}, {}", e.ctaBase.text, e.cta.text, e.ntid.text));
  e.gtid = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("add.s32 \t{}, {}, {}", e.gtid.text, e.ctaBase.text, e.tid.text));
  e.lane = newReg(Kind::B32, Uni::Div);
  if (rng.coin()) {
    emit(fmt::format("mov.u32 \t{}, %laneid", e.lane.text));
  } else {
    emit(fmt::format("and.b32 \t{}, {}, 31", e.lane.text, e.tid.text));
  }
  e.warp = newReg(Kind::B32, Uni::Warp);
  emit(fmt::format("shr.u32 \t{}, {}, 5", e.warp.text, e.tid.text));
  for (const Value& v : {e.tid, e.ntid, e.cta, e.ctaBase, e.gtid, e.lane, e.warp}) define(v, false);
  // This thread's out slots.
  Value off = newReg(Kind::B64, Uni::Div);
  emit(fmt::format("mul.wide.u32 \t{}, {}, {}", off.text, e.gtid.text, 8 * kSlots));
  e.outp = newReg(Kind::B64, Uni::Div);
  emit(fmt::format("add.s64 \t{}, {}, {}", e.outp.text, out.text, off.text));
  // Scalar parameters.
  Value n = newReg(Kind::B32, Uni::Cta), m = newReg(Kind::B32, Uni::Cta), fl = newReg(Kind::F32, Uni::Cta),
        l = newReg(Kind::B64, Uni::Cta);
  emit(fmt::format("ld.param.u32 \t{}, [{}_param_{}]", n.text, f.name, kParamN));
  emit(fmt::format("ld.param.u32 \t{}, [{}_param_{}]", m.text, f.name, kParamM));
  define(n, false);
  define(m, false);
  if (!lean) {
    emit(fmt::format("ld.param.f32 \t{}, [{}_param_{}]", fl.text, f.name, kParamF));
    emit(fmt::format("ld.param.u64 \t{}, [{}_param_{}]", l.text, f.name, kParamL));
    define(fl, false);
    define(l, false);
  } else {
    fl = Value{};
  }
  // This thread's shared row, initialized (nobody reads a row before its owner wrote it).
  Value shBase = newReg(Kind::B32, Uni::Const), rowOff = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("mov.u32 \t{}, fz_sh", shBase.text));
  emit(fmt::format("shl.b32 \t{}, {}, 4", rowOff.text, e.tid.text));
  e.shRow = newReg(Kind::B32, Uni::Div);
  emit(fmt::format("add.s32 \t{}, {}, {}", e.shRow.text, shBase.text, rowOff.text));
  emit(fmt::format("st.shared.v4.u32 \t[{}], {{{}, {}, {}, {}}}", e.shRow.text, e.tid.text, e.gtid.text, n.text,
                   m.text));
  if (usesDynShared) {
    Value dBase = newReg(Kind::B64, Uni::Const);
    emit(fmt::format("mov.u64 \t{}, fz_dsh", dBase.text));
    Value dOff = newReg(Kind::B64, Uni::Div);
    emit(fmt::format("mul.wide.u32 \t{}, {}, {}", dOff.text, e.tid.text, 4 * dynRowWords));
    Value dRow = newReg(Kind::B64, Uni::Div);
    emit(fmt::format("add.s64 \t{}, {}, {}", dRow.text, dBase.text, dOff.text));
    emit(fmt::format("st.shared.v2.f32 \t[{}], {{{}, {}}}", dRow.text, fl.text, fl.text));
  }
  if (usesShAcc) {
    // Zero the shared accumulators; the barrier below orders that before every atomic.
    Value p = newReg(Kind::Pred, Uni::Div);
    emit(fmt::format("setp.lt.u32 \t{}, {}, {}", p.text, e.tid.text, kShAcc));
    Value o = newReg(Kind::B32, Uni::Div);
    emit(fmt::format("shl.b32 \t{}, {}, 2", o.text, e.tid.text));
    Value b = newReg(Kind::B32, Uni::Const);
    emit(fmt::format("mov.u32 \t{}, fz_shacc", b.text));
    Value a = newReg(Kind::B32, Uni::Div);
    emit(fmt::format("add.s32 \t{}, {}, {}", a.text, b.text, o.text));
    emit(fmt::format("@{} st.shared.u32 \t[{}], 0", p.text, a.text));
  }
  if (f.usesLocal) {
    e.localBase = newReg(Kind::B64, Uni::Const);
    emit(fmt::format("mov.u64 \t{}, fz_local", e.localBase.text));
    for (unsigned k = 0; k < kLocalWords / 4; ++k)
      emit(fmt::format("st.local.v4.u32 \t[fz_local+{}], {{{}, {}, {}, {}}}", 16 * k, e.gtid.text, e.lane.text,
                       n.text, k * 7));
  }
  if (usesShAcc) barrier();

  // The long-lived variables: every kind, each with a uniformity class.
  struct Plan {
    Kind kind;
    unsigned count;
  };
  std::vector<Plan> plan;
  if (lean) {
    plan = {{Kind::Pred, 1}, {Kind::B32, static_cast<unsigned>(rng.range(1, 2))},
            {Kind::F32, static_cast<unsigned>(rng.range(0, 1))}};
  } else {
    plan = {{Kind::Pred, static_cast<unsigned>(rng.range(2, 3))}, {Kind::B32, static_cast<unsigned>(rng.range(3, 5))},
            {Kind::B64, static_cast<unsigned>(rng.range(1, 2))},  {Kind::F32, static_cast<unsigned>(rng.range(1, 3))},
            {Kind::F64, static_cast<unsigned>(rng.range(0, 2))},  {Kind::B16, static_cast<unsigned>(rng.range(1, 2))}};
  }
  for (const Plan& pl : plan) {
    for (unsigned k = 0; k < pl.count && vars.size() < kVarSlots; ++k) {
      Uni cls = rng.pick<Uni>({Uni::Cta, Uni::Cta, Uni::Warp, Uni::Div, Uni::Div, Uni::Div});
      Value v = newReg(pl.kind, cls);
      Value src = cls == Uni::Cta ? (rng.coin() ? n : e.cta) : (cls == Uni::Warp ? e.warp : e.gtid);
      switch (pl.kind) {
        case Kind::Pred:
          emit(fmt::format("setp.{}.u32 \t{}, {}, {}", rng.pick<const char*>({"lt", "ge", "ne"}), v.text, src.text,
                           cls == Uni::Div ? rng.range(1, threads()) : rng.range(0, 3)));
          break;
        case Kind::B32:
          if (cls == Uni::Div && rng.coin()) {
            Value idx = newReg(Kind::B32, Uni::Div);
            emit(fmt::format("and.b32 \t{}, {}, {}", idx.text, e.gtid.text, inCount - 1));
            Value a = address(e.inI, idx, 4);
            emit(fmt::format("ld.global.u32 \t{}, [{}]", v.text, a.text));
          } else {
            emit(fmt::format("mad.lo.s32 \t{}, {}, {}, {}", v.text, src.text, rng.range(-9, 9), rng.range(-50, 50)));
          }
          break;
        case Kind::B64:
          emit(fmt::format("mul.wide.s32 \t{}, {}, {}", v.text, src.text, rng.range(-100000, 100000)));
          break;
        case Kind::F32:
          if (cls == Uni::Div && e.inF) {
            Value idx = newReg(Kind::B32, Uni::Div);
            emit(fmt::format("and.b32 \t{}, {}, {}", idx.text, e.gtid.text, inFCount - 1));
            Value a = address(e.inF, idx, 4);
            emit(fmt::format("ld.global.f32 \t{}, [{}]", v.text, a.text));
          } else if (cls == Uni::Cta && fl && rng.coin()) {
            emit(fmt::format("mov.f32 \t{}, {}", v.text, fl.text));
          } else {
            emit(fmt::format("cvt.rn.f32.u32 \t{}, {}", v.text, src.text));
          }
          break;
        case Kind::F64:
          if (cls == Uni::Div && e.inD) {
            Value idx = newReg(Kind::B32, Uni::Div);
            emit(fmt::format("and.b32 \t{}, {}, {}", idx.text, e.gtid.text, inFCount - 1));
            Value a = address(e.inD, idx, 8);
            emit(fmt::format("ld.global.f64 \t{}, [{}]", v.text, a.text));
          } else {
            emit(fmt::format("cvt.rn.f64.s32 \t{}, {}", v.text, src.text));
          }
          break;
        case Kind::B16:
          emit(fmt::format("cvt.u16.u32 \t{}, {}", v.text, src.text));
          break;
      }
      define(v);
      vars.push_back(v);
      f.sinks.push_back(v);
    }
  }
}

void Gen::kernelEpilogue() {
  Function& f = *fn_;
  const Env& e = f.env;
  mult_ = 1;
  for (size_t j = 0; j < vars.size(); ++j) {
    const Value& v = vars[j];
    unsigned off = static_cast<unsigned>(8 * j);
    switch (v.kind) {
      case Kind::Pred: {
        Value t = newReg(Kind::B32, Uni::Div);
        emit(fmt::format("selp.u32 \t{}, 1, 0, {}", t.text, v.text));
        emit(fmt::format("st.global.u32 \t[{}+{}], {}", e.outp.text, off, t.text));
        break;
      }
      case Kind::B16: emit(fmt::format("st.global.u16 \t[{}+{}], {}", e.outp.text, off, v.text)); break;
      case Kind::B32: emit(fmt::format("st.global.u32 \t[{}+{}], {}", e.outp.text, off, v.text)); break;
      case Kind::B64: emit(fmt::format("st.global.u64 \t[{}+{}], {}", e.outp.text, off, v.text)); break;
      case Kind::F32: emit(fmt::format("st.global.f32 \t[{}+{}], {}", e.outp.text, off, v.text)); break;
      case Kind::F64: emit(fmt::format("st.global.f64 \t[{}+{}], {}", e.outp.text, off, v.text)); break;
    }
  }
  Ctx top;
  if (usesShAcc && barriersOk(top)) {
    barrier();
    Value a[8];
    for (Value& v : a) v = newReg(Kind::B32, Uni::Cta);
    emit(fmt::format("ld.shared.v4.u32 \t{{{}, {}, {}, {}}}, [fz_shacc]", a[0].text, a[1].text, a[2].text, a[3].text));
    emit(fmt::format("ld.shared.v4.u32 \t{{{}, {}, {}, {}}}, [fz_shacc+16]", a[4].text, a[5].text, a[6].text,
                     a[7].text));
    emit(fmt::format("st.global.v4.u32 \t[{}+{}], {{{}, {}, {}, {}}}", e.outp.text, 8 * kAccSlot, a[0].text, a[1].text,
                     a[2].text, a[3].text));
    emit(fmt::format("st.global.v4.u32 \t[{}+{}], {{{}, {}, {}, {}}}", e.outp.text, 8 * kAccSlot + 16, a[4].text,
                     a[5].text, a[6].text, a[7].text));
  }
  emit("ret");
  if (!f.exitLabel.empty()) {
    label(f.exitLabel);
    emit("ret");
  }
  if (!f.caseExitLabel.empty()) {
    label(f.caseExitLabel);
    Value a = newReg(Kind::B64, Uni::Div);
    emit(fmt::format("add.s64 \t{}, {}, {}", a.text, e.outp.text, 8 * kVarSlots));
    emit(fmt::format("st.global.u32 \t[{}], {}", a.text, f.caseExitValue.text));
    emit("ret");
  }
}

std::string Gen::functionText(const Function& f, const std::string& header) {
  std::string t = header + "\n{\n";
  if (f.usesLocal) t += fmt::format("\t.local .align 16 .b8 \tfz_local[{}];\n", 4 * kLocalWords);
  static const Kind kOrder[] = {Kind::Pred, Kind::B16, Kind::B32, Kind::B64, Kind::F32, Kind::F64};
  for (Kind k : kOrder) {
    unsigned n = f.regs[static_cast<int>(k)];
    if (n) t += fmt::format("\t.reg {} \t{}<{}>;\n", regType(k), regPrefix(k), n + 1);
  }
  t += "\n";
  for (const std::string& line : f.lines) t += line + "\n";
  t += "}\n";
  return t;
}

GeneratedKernel Gen::run() {
  size = opts.size;
  if (size == KernelSize::Random) {
    size = static_cast<KernelSize>(rng.weighted({45, 40, 15}));
  }
  switch (size) {
    case KernelSize::Small:
      lim = {static_cast<unsigned>(rng.range(6, 60)), 64, 6000};
      break;
    case KernelSize::Medium:
      lim = {static_cast<unsigned>(rng.range(100, 600)), 64, 40000};
      break;
    default:
      lim = {static_cast<unsigned>(rng.range(1000, 5000)), 32, 120000};
      break;
  }
  // The launch: warps are always full.
  if (rng.chance(15)) {
    blockX = rng.pick<unsigned>({32, 64});
    blockY = rng.pick<unsigned>({2, 4});
  } else {
    blockX = size == KernelSize::Large ? rng.pick<unsigned>({32, 64, 96, 128})
                                       : rng.pick<unsigned>({32, 64, 64, 96, 128, 128, 256});
  }
  grid = static_cast<unsigned>(rng.range(1, size == KernelSize::Large ? 2 : 4));
  version = rng.pick<const char*>({"8.0", "8.0", "7.8", "8.1", "8.2", "8.3", "8.4", "8.5"});
  inCount = 1024;
  inFCount = 256;
  for (unsigned k = 0; k < constWords; ++k) constTable.push_back(static_cast<uint32_t>(rng.next()));
  for (unsigned k = 0; k < 8; ++k) constTable64.push_back(rng.next() >> rng.range(0, 40));
  for (unsigned k = 0; k < 16; ++k) globalTable.push_back(static_cast<uint32_t>(rng.range(-1000, 1000)));
  paramN = static_cast<int32_t>(rng.range(0, 100));
  paramMask = static_cast<uint32_t>(rng.next());
  paramF = static_cast<float>(rng.range(-64, 64)) / 8.0f;
  paramL = rng.next() >> rng.range(0, 63);
  inISeed = static_cast<unsigned>(rng.range(1, 1000000));
  inFSeed = static_cast<unsigned>(rng.range(1, 1000000));
  inDSeed = static_cast<unsigned>(rng.range(1, 1000000));
  switch (rng.below(4)) {
    case 0: inIMin = -100; inIMax = 100; break;
    case 1: inIMin = 0; inIMax = 1000; break;
    case 2: inIMin = 0; inIMax = 31; break;
    default: inIMin = -2147483647 - 1; inIMax = 2147483647; break;
  }
  warpSzKernel = opts.useWarpSz && rng.chance(20);
  lean = size == KernelSize::Small && rng.chance(40);
  usesShAcc = !lean && rng.chance(60);
  usesDynShared = !lean && rng.chance(40);
  maxntid = rng.chance(15);
  // Barrier-heavy kernels declare their shape more often: dead-sync's private-slots refinement
  // needs .reqntid (the draw is the same, so the rest of the kernel keeps its bytes).
  reqntid = !maxntid && rng.chance(opts.barrierHeavy ? 50 : 10);

  if (opts.calls && !lean && rng.chance(45)) genCallees();

  Function k;
  k.kernel = true;
  k.name = fmt::format("fuzz_{}", seed);
  k.usesLocal = !lean && rng.chance(50);
  fn_ = &k;
  kernelPrologue();
  exitAfter = k.instructions + lim.budget * 6 / 10;
  Ctx root;
  genSeq(root, lim.budget);
  kernelEpilogue();
  popScope();

  std::string header = fmt::format(".visible .entry {}(\n", k.name);
  static const char* const kScalarTypes[] = {".u32", ".u32", ".f32", ".u64"};
  for (unsigned p = 0; p < 7; ++p) header += fmt::format("\t.param .u64 {}_param_{},\n", k.name, p);
  for (unsigned p = 0; p < 4; ++p)
    header += fmt::format("\t.param {} {}_param_{}{}\n", kScalarTypes[p], k.name, 7 + p, p == 3 ? "" : ",");
  header += ")";
  if (maxntid) header += fmt::format("\n.maxntid {}, {}, 1", blockX, blockY);
  if (reqntid) header += fmt::format("\n.reqntid {}, {}, 1", blockX, blockY);

  std::string m;
  m += fmt::format("//\n// Generated by ptxfuzz gen --seed {} --size {}\n//\n\n", seed, kernelSizeName(size));
  m += fmt::format(".version {}\n.target sm_90\n.address_size 64\n\n", version);
  m += fmt::format(".const .align 4 .b32 fz_ctab[{}] = {{", constWords);
  for (unsigned i = 0; i < constWords; ++i) m += fmt::format("{}{}", i ? ", " : "", constTable[i]);
  m += "};\n";
  m += fmt::format(".const .align 8 .b64 fz_ctab64[{}] = {{", constTable64.size());
  for (size_t i = 0; i < constTable64.size(); ++i) m += fmt::format("{}{}", i ? ", " : "", constTable64[i]);
  m += "};\n";
  m += fmt::format(".global .align 4 .b32 fz_gtab[{}] = {{", globalTable.size());
  for (size_t i = 0; i < globalTable.size(); ++i)
    m += fmt::format("{}{}", i ? ", " : "", static_cast<int32_t>(globalTable[i]));
  m += "};\n";
  m += fmt::format(".shared .align 16 .b8 fz_sh[{}];\n", 16 * threads());
  m += fmt::format(".shared .align 16 .b8 fz_shacc[{}];\n", 4 * kShAcc);
  if (usesDynShared) m += ".extern .shared .align 16 .b8 fz_dsh[];\n";
  if (opts.asyncCopies) m += fmt::format(".shared .align 8 .b8 fz_mbar[{}];\n", 8 * threads());  // one mbarrier per thread
  m += "\n";
  for (const std::string& t : calleeTexts) m += t + "\n";
  m += functionText(k, header);

  GeneratedKernel g;
  g.name = k.name;
  g.ptx = std::move(m);
  g.specJson = specText();
  g.seed = seed;
  g.size = size;
  g.instructions = instructionTotal + k.instructions;
  g.shapes = shapes_;
  fn_ = nullptr;
  return g;
}

GeneratedKernel generateKernel(uint64_t seed, const GeneratorOptions& options) {
  Gen g(seed, options);
  return g.run();
}

}  // namespace ptxopt::fuzz
