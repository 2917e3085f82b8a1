#include "ptxopt/analysis/MemoryEffects.h"

#include "ptxopt/ir/Signature.h"

namespace ptxopt {

std::string memEffectsText(MemEffects e) {
  std::string out;
  auto add = [&](MemEffects bit, const char* name) {
    if (e & bit) out += std::string(out.empty() ? "" : ", ") + name;
  };
  add(MemEffect::ReadShared, "reads shared");
  add(MemEffect::WriteShared, "writes shared");
  add(MemEffect::ReadGlobal, "reads global");
  add(MemEffect::WriteGlobal, "writes global");
  return out.empty() ? "none" : out;
}

bool isFullCtaBarrier(const Instruction& i) {
  if (!i.info().is(OpFlag::CtaBarrier) || i.has(Mod::Arrive) || i.hasGuard()) return false;
  unsigned sources = i.numOperands() - i.numDefOperands();
  return sources == (i.has(Mod::Red) ? 2u : 1u);  // red: id and predicate; else: id
}

CallSummary CallSummaries::of(const Module& m, const Instruction& call) const {
  const Operand* target = callTarget(call);
  if (!target || target->kind != OperandKind::Symbol) return {};
  auto it = byName.find(std::string(m.str(target->id)));
  return it == byName.end() ? CallSummary{} : it->second;
}

MemEffects memEffects(const Instruction& i, const MemorySpaceInfo& mem, const Module& m, const CallSummaries* calls,
                      const MemEffectsOptions& o) {
  const OpcodeInfo& info = i.info();
  if (info.isPseudo()) return MemEffect::None;
  if (info.is(OpFlag::Call)) {
    if (o.callsTouchNothing) return MemEffect::None;
    if (!calls) return MemEffect::All;
    return calls->of(m, i).effects;
  }
  if (info.isOpaque()) return MemEffect::All;
  if (!info.readsMemory() && !info.writesMemory()) return MemEffect::None;
  const MemAccess* a = mem.find(&i);
  if (!a) return MemEffect::All;
  MemEffects r = MemEffect::ReadShared | MemEffect::ReadGlobal, w = MemEffect::WriteShared | MemEffect::WriteGlobal;
  switch (a->space) {
    case StateSpace::Shared: r = MemEffect::ReadShared, w = MemEffect::WriteShared; break;
    case StateSpace::Global: r = MemEffect::ReadGlobal, w = MemEffect::WriteGlobal; break;
    case StateSpace::Local:
    case StateSpace::Param:
    case StateSpace::Const:
      if (!o.privateSpacesCount) return MemEffect::None;
      break;
    default: break;
  }
  MemEffects out = MemEffect::None;
  if (a->reads || a->atomic) out |= r;
  if (a->writes || a->atomic) out |= w;
  return out;
}

CallSummaries computeCallSummaries(const Module& m) {
  CallSummaries s;
  // Each function's own effects and barriers, and whom it calls.
  struct Local {
    CallSummary own{MemEffect::None, false};
    std::vector<const Instruction*> calls;
  };
  std::unordered_map<std::string, Local> local;
  for (const auto& f : m.functions()) {
    if (!f->hasBody) continue;
    FunctionAnalysisManager am(*f);
    const MemorySpaceInfo& mem = am.get<MemorySpaceAnalysis>();
    Local& l = local[std::string(f->name())];
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts()) {
        if (i->info().is(OpFlag::Call)) {
          l.calls.push_back(i);
          continue;
        }
        if (i->info().is(OpFlag::CtaBarrier) || i->info().isOpaque()) l.own.mayBarrier = true;
        l.own.effects |= memEffects(*i, mem, m, nullptr);
      }
    s.byName[std::string(f->name())] = l.own;
  }
  // Bottom-up to a fixed point: a function does what it does and what its callees do (an
  // unknown callee: everything). Effects only grow, so recursion converges.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, l] : local) {
      CallSummary now = l.own;
      for (const Instruction* c : l.calls) {
        CallSummary callee = s.of(m, *c);
        now.effects |= callee.effects;
        now.mayBarrier |= callee.mayBarrier;
      }
      CallSummary& cur = s.byName[name];
      if (now.effects != cur.effects || now.mayBarrier != cur.mayBarrier) {
        cur = now;
        changed = true;
      }
    }
  }
  return s;
}

}  // namespace ptxopt
