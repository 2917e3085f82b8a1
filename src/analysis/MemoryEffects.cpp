#include "ptxopt/analysis/MemoryEffects.h"

#include <unordered_set>

#include "ptxopt/analysis/BarrierRegions.h"
#include "ptxopt/analysis/Uniformity.h"
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

std::string_view directCallee(const Module& m, const Instruction& inst) {
  const Operand* target = inst.info().is(OpFlag::Call) ? callTarget(inst) : nullptr;
  return target && target->kind == OperandKind::Symbol ? m.str(target->id) : std::string_view();
}

CallSummary CallSummaries::of(const Module& m, const Instruction& call) const {
  std::string_view callee = directCallee(m, call);
  if (callee.empty()) return {};
  auto it = byName.find(std::string(callee));
  return it == byName.end() ? CallSummary{} : it->second;
}

CallSummary CallSummaries::of(const Function& f) const {
  auto it = byName.find(std::string(f.name()));
  return it == byName.end() ? CallSummary{} : it->second;
}

CallSummary callingContext(const CallSummaries* s, const Function& f) {
  if (f.isEntry) return {MemEffect::None, false, MemEffect::None, MemEffect::None, /*uniformEntry=*/true};
  return s ? s->of(f) : CallSummary{};
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
  // An asynchronous memory operation (OpFlag::AsyncMemory: cp.async and its commit_group and
  // wait_group, the bulk copies, mbarrier, ...) counts as every access wherever it stands: its
  // issue reads and writes, and its wait is where the copy's bytes land, so the barrier after a
  // cp.async.wait_group orders them for the other threads (ptxrun's race checker has the same
  // model). No barrier orders a copy in flight, so the regions between need not see it.
  if (info.isOpaque() || info.is(OpFlag::AsyncMemory)) return MemEffect::All;
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
      if (!o.countLocalParamConst) return MemEffect::None;
      break;
    default: break;
  }
  MemEffects out = MemEffect::None;
  if (a->reads || a->atomic) out |= r;
  if (a->writes || a->atomic) out |= w;
  return out;
}

namespace {

// Functions whose every caller is a call instruction of this module naming them: no linkage
// that lets another module call them, and their address taken nowhere (an operand other than
// a call's target, an initializer).
std::unordered_set<std::string> functionsWithKnownCallers(const Module& m) {
  std::unordered_set<std::string> known, exposed;
  for (const auto& f : m.functions()) {
    std::string name(f->name());
    if (f->isEntry || f->linkage != Linkage::None) exposed.insert(name);
    else if (f->hasBody) known.insert(name);
  }
  auto expose = [&](uint32_t id) { exposed.insert(std::string(m.str(id))); };
  auto exposeInitializer = [&](const Variable& v) {
    for (const InitItem& it : v.init)
      if (it.kind == InitItem::Kind::Symbol || it.kind == InitItem::Kind::Generic) expose(it.id);
  };
  for (const Variable& v : m.globals()) exposeInitializer(v);
  for (const auto& f : m.functions()) {
    for (const Decl& d : f->decls())
      if (d.kind == Decl::Kind::Var) exposeInitializer(d.var);
  }
  for (const auto& f : m.functions())
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts()) {
        const Operand* target = i->info().is(OpFlag::Call) ? callTarget(*i) : nullptr;  // the one legal mention
        i->forEachLeaf([&](const Operand& o) {
          if (&o == target) return;
          if (o.kind == OperandKind::Symbol || (o.kind == OperandKind::Address && o.addressBase() == AddressBase::Symbol))
            expose(o.id);
        });
      }
  for (const std::string& e : exposed) known.erase(e);
  return known;
}

}  // namespace

CallSummaries computeCallSummaries(const Module& m) {
  CallSummaries s;
  // Each function's own effects and barriers, and whom it calls.
  struct Local {
    CallSummary own{MemEffect::None, false};
    std::vector<const Instruction*> calls;
  };
  std::unordered_map<std::string, Local> local;
  std::vector<std::pair<const Function*, std::unique_ptr<FunctionAnalysisManager>>> bodies;
  // Only a call site reads a function's own effects: a function no direct call names keeps
  // the summary of everything, and its memory spaces are not computed.
  std::unordered_set<std::string_view> called;
  for (const auto& f : m.functions())
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts())
        if (std::string_view callee = directCallee(m, *i); !callee.empty()) called.insert(callee);
  for (const auto& f : m.functions()) {
    if (!f->hasBody) continue;
    auto& am = bodies.emplace_back(f.get(), std::make_unique<FunctionAnalysisManager>(*f)).second;
    Local& l = local[std::string(f->name())];
    const MemorySpaceInfo* mem = called.count(f->name()) ? &am->get<MemorySpaceAnalysis>() : nullptr;
    if (!mem) l.own = CallSummary{};  // everything
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts()) {
        if (i->info().is(OpFlag::Call)) {
          l.calls.push_back(i);
          continue;
        }
        if (!mem) continue;
        if (i->info().is(OpFlag::CtaBarrier) || i->info().isOpaque()) l.own.mayBarrier = true;
        l.own.effects |= memEffects(*i, *mem, m, nullptr);
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
        cur.effects = now.effects;
        cur.mayBarrier = now.mayBarrier;
        changed = true;
      }
    }
  }
  // Contexts, top-down from nothing to a fixed point (they only grow): a function with known
  // callers sees the union of its call sites' surroundings.
  std::unordered_set<std::string> known = functionsWithKnownCallers(m);
  // The union of the call sites' surroundings is what the callee's barriers see only when every
  // thread of the CTA gets there through the same call site: a call reached under a branch that
  // may send the CTA's threads different ways (a warp-uniform branch on %warpid too), or from a
  // function entered that way, leaves the other threads elsewhere, at barriers of their own
  // that pair with the callee's. Such callees see every access.
  // Per function: its direct call sites, and whether each is reached CTA-divergently.
  std::vector<std::vector<std::pair<std::string, bool>>> callSites(bodies.size());
  for (size_t k = 0; k < bodies.size(); ++k) {
    if (local[std::string(bodies[k].first->name())].calls.empty()) continue;
    const CfgInfo& cfg = bodies[k].second->get<CfgAnalysis>();
    std::vector<uint8_t> divergent = divergentlyReachedBlocks(*bodies[k].second, UniformityLevel::Cta);
    for (uint32_t x = 0; x < cfg.size(); ++x)
      for (const Instruction* i : cfg.rpo[x]->insts())
        if (std::string_view callee = directCallee(m, *i); !callee.empty())
          callSites[k].emplace_back(std::string(callee), divergent[x] != 0);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < bodies.size(); ++k) {
      const Function& f = *bodies[k].first;
      bool uniformEntry = f.isEntry || known.count(std::string(f.name()));
      for (const auto& [callee, divergent] : callSites[k])
        if ((!uniformEntry || divergent) && known.erase(callee)) changed = true;
    }
  }
  for (auto& [name, summary] : s.byName)
    if (known.count(name)) {
      summary.before = summary.after = MemEffect::None;
      summary.uniformEntry = true;
    }
  for (bool changed = true; changed && !known.empty();) {
    changed = false;
    std::unordered_map<std::string, std::pair<MemEffects, MemEffects>> seen;
    for (auto& [f, am] : bodies) {
      const CfgInfo& cfg = am->get<CfgAnalysis>();
      const MemorySpaceInfo& mem = am->get<MemorySpaceAnalysis>();
      SyncClassifier classify = [&](const Instruction& i) { return SyncAccesses::anyOf(memEffects(i, mem, m, &s)); };
      CallSummary self = callingContext(&s, *f);
      BarrierRegions regions = computeBarrierRegions(cfg, classify, SyncAccesses::anyOf(self.before),
                                                     SyncAccesses::anyOf(self.after));
      for (uint32_t x = 0; x < cfg.size(); ++x)
        forEachPosition(cfg, regions, x, classify, [&](size_t j, const SyncAccesses& above, const SyncAccesses& below) {
          std::string callee(directCallee(m, *cfg.rpo[x]->insts()[j]));
          if (callee.empty() || !known.count(callee)) return;
          auto& [b, a] = seen[callee];
          b |= above.all();
          a |= below.all();
        });
    }
    for (auto& [name, ctx] : seen) {
      CallSummary& cur = s.byName[name];
      MemEffects b = cur.before | ctx.first, a = cur.after | ctx.second;
      if (b != cur.before || a != cur.after) {
        cur.before = b;
        cur.after = a;
        changed = true;
      }
    }
  }
  return s;
}

}  // namespace ptxopt
