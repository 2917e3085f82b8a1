// `.func` callees with `.param` parameters and return values, and calls to them written as
// nvcc writes them: a `{ }` scope declaring the argument and return `.param`s, st.param,
// call, ld.param. Callees without barriers may be called under divergent branches; a callee
// with barriers is called only where every thread of the CTA is.
#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

namespace {

const char* paramType(Kind k) {
  switch (k) {
    case Kind::B32: return ".b32";
    case Kind::F32: return ".f32";
    case Kind::B64: return ".b64";
    case Kind::F64: return ".f64";
    default: return ".b32";
  }
}

}  // namespace

void Gen::genCallees() {
  unsigned count = static_cast<unsigned>(rng.range(1, size == KernelSize::Small ? 2 : 3));
  for (unsigned i = 0; i < count; ++i) {
    Callee ci;
    ci.name = fmt::format("fz_func{}", i);
    unsigned np = static_cast<unsigned>(rng.range(0, 3));
    for (unsigned k = 0; k < np; ++k) ci.params.push_back(rng.pick<Kind>({Kind::B32, Kind::B32, Kind::F32, Kind::B64, Kind::F64}));
    ci.hasReturn = rng.chance(80);
    ci.ret = rng.pick<Kind>({Kind::B32, Kind::B32, Kind::F32, Kind::B64, Kind::F64});
    ci.barriers = rng.chance(25);

    Function f;
    f.kernel = false;
    f.name = ci.name;
    f.allowBarriers = ci.barriers;
    f.lanesMissing = !ci.barriers;  // may run under a divergent branch: no full-mask collectives
    Function* saved = fn_;
    fn_ = &f;
    mult_ = 1;
    pushScope();
    Env& e = f.env;
    e.outp = newReg(Kind::B64, Uni::Div);
    emit(fmt::format("ld.param.u64 \t{}, [{}_param_0]", e.outp.text, f.name));
    e.inI = newReg(Kind::B64, Uni::Cta);
    emit(fmt::format("ld.param.u64 \t{}, [{}_param_1]", e.inI.text, f.name));
    e.tid = newReg(Kind::B32, Uni::Div);
    if (blockY > 1) {
      Value y = newReg(Kind::B32, Uni::Warp);
      emit(fmt::format("mov.u32 \t{}, %tid.y", y.text));
      Value x = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("mov.u32 \t{}, %tid.x", x.text));
      emit(fmt::format("mad.lo.s32 \t{}, {}, {}, {}", e.tid.text, y.text, blockX, x.text));
    } else {
      emit(fmt::format("mov.u32 \t{}, %tid.x", e.tid.text));
    }
    e.lane = newReg(Kind::B32, Uni::Div);
    emit(fmt::format("mov.u32 \t{}, %laneid", e.lane.text));
    e.cta = newReg(Kind::B32, Uni::Cta);
    emit(fmt::format("mov.u32 \t{}, %ctaid.x", e.cta.text));
    Value base = newReg(Kind::B32, Uni::Const), off = newReg(Kind::B32, Uni::Div);
    emit(fmt::format("mov.u32 \t{}, fz_sh", base.text));
    emit(fmt::format("shl.b32 \t{}, {}, 4", off.text, e.tid.text));
    e.shRow = newReg(Kind::B32, Uni::Div);
    emit(fmt::format("add.s32 \t{}, {}, {}", e.shRow.text, base.text, off.text));
    for (const Value& v : {e.tid, e.lane, e.cta}) define(v, false);
    if (rng.chance(40)) {
      f.usesLocal = true;
      e.localBase = newReg(Kind::B64, Uni::Const);
      emit(fmt::format("mov.u64 \t{}, fz_local", e.localBase.text));
      for (unsigned k = 0; k < kLocalWords / 4; ++k)
        emit(fmt::format("st.local.v4.u32 \t[fz_local+{}], {{{}, {}, {}, {}}}", 16 * k, e.tid.text, e.lane.text,
                         e.cta.text, k));
    }
    for (size_t k = 0; k < ci.params.size(); ++k) {
      Value v = newReg(ci.params[k], Uni::Div);
      emit(fmt::format("ld.param{} \t{}, [{}_param_{}]", paramType(ci.params[k]), v.text, f.name, k + 2));
      define(v);
    }
    Value ret;
    if (ci.hasReturn) {
      ret = newReg(ci.ret, Uni::Div);
      Value init = pick(ci.ret, Uni::Div);
      emit(fmt::format("mov{} \t{}, {}", paramType(ci.ret), ret.text, init.text));
      define(ret);
      f.sinks.push_back(ret);
    }
    // A few values to compute with.
    for (int k = 0; k < 2; ++k) {
      Value v = newReg(Kind::B32, Uni::Div);
      emit(fmt::format("ld.global.u32 \t{}, [{}+{}]", v.text, e.inI.text, 4 * rng.below(inCount)));
      define(v);
    }
    Value p = newReg(Kind::Pred, Uni::Div);
    emit(fmt::format("setp.lt.u32 \t{}, {}, {}", p.text, e.lane.text, rng.range(1, 31)));
    define(p);

    Ctx c;
    c.flow = ci.barriers ? Uni::Cta : Uni::Div;
    c.noExit = ci.barriers;
    unsigned budget = static_cast<unsigned>(size == KernelSize::Small ? rng.range(3, 15)
                                            : size == KernelSize::Medium ? rng.range(10, 60)
                                                                         : rng.range(40, 300));
    genSeq(c, budget);
    if (!f.exitLabel.empty()) label(f.exitLabel);
    if (ci.hasReturn) emit(fmt::format("st.param{} \t[func_retval0+0], {}", paramType(ci.ret), ret.text));
    emit("ret");
    popScope();
    ci.cost = f.dynamic + 8;

    std::string header = ".func ";
    if (ci.hasReturn) header += fmt::format("(.param {} func_retval0) ", paramType(ci.ret));
    header += ci.name + "(\n";
    header += fmt::format("\t.param .b64 {}_param_0,\n\t.param .b64 {}_param_1", f.name, f.name);
    for (size_t k = 0; k < ci.params.size(); ++k)
      header += fmt::format(",\n\t.param {} {}_param_{}", paramType(ci.params[k]), f.name, k + 2);
    header += "\n)";
    calleeTexts.push_back(functionText(f, header));
    instructionTotal += f.instructions;
    fn_ = saved;
    callees.push_back(ci);
  }
}

void Gen::genCall(const Ctx& c) {
  std::vector<const Callee*> ok;
  uint64_t left = dynamicLeft(c);
  for (const Callee& ci : callees)
    if ((!ci.barriers || barriersOk(c)) && ci.cost * c.mult <= left) ok.push_back(&ci);
  if (ok.empty() || !fn_->env.outp || !fn_->env.inI) {
    genArith(c);
    return;
  }
  const Callee& ci = *rng.pick(ok);
  emitRaw("\t{ // callseq");
  std::string args = "param0, param1";
  emitRaw("\t.param .b64 param0;");
  emit(fmt::format("st.param.b64 \t[param0+0], {}", fn_->env.outp.text));
  emitRaw("\t.param .b64 param1;");
  emit(fmt::format("st.param.b64 \t[param1+0], {}", fn_->env.inI.text));
  for (size_t k = 0; k < ci.params.size(); ++k) {
    emitRaw(fmt::format("\t.param {} param{};", paramType(ci.params[k]), k + 2));
    emit(fmt::format("st.param{} \t[param{}+0], {}", paramType(ci.params[k]), k + 2,
                     pick(ci.params[k], Uni::Div).text));
    args += fmt::format(", param{}", k + 2);
  }
  const char* uni = c.flow <= Uni::Warp && rng.coin() ? ".uni" : "";
  if (ci.hasReturn) {
    emitRaw(fmt::format("\t.param {} retval0;", paramType(ci.ret)));
    emit(fmt::format("call{} \t(retval0), {}, ({})", uni, ci.name, args));
    Value d = dest(ci.ret, Uni::Div, c);
    emit(fmt::format("ld.param{} \t{}, [retval0+0]", paramType(ci.ret), d.text));
  } else {
    emit(fmt::format("call{} \t{}, ({})", uni, ci.name, args));
  }
  emitRaw("\t} // callseq");
  fn_->dynamic += ci.cost * c.mult;
  shape(c.flow == Uni::Div ? "call.divergent" : "call.uniform");
  if (ci.barriers) shape("call.with_barrier");
}

}  // namespace ptxopt::fuzz
