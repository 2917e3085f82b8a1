// Registers, scopes, operand choice and the emission buffer.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "Builder.h"

namespace ptxopt::fuzz {

std::string hex32(uint32_t v) { return fmt::format("0x{:08X}", v); }

std::string f32Imm(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return fmt::format("0f{:08X}", bits);
}

std::string f64Imm(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return fmt::format("0d{:016X}", bits);
}

const char* Gen::regPrefix(Kind k) {
  switch (k) {
    case Kind::Pred: return "%p";
    case Kind::B16: return "%rs";
    case Kind::B32: return "%r";
    case Kind::B64: return "%rd";
    case Kind::F32: return "%f";
    case Kind::F64: return "%fd";
  }
  return "%r";
}

const char* Gen::regType(Kind k) {
  switch (k) {
    case Kind::Pred: return ".pred";
    case Kind::B16: return ".b16";
    case Kind::B32: return ".b32";
    case Kind::B64: return ".b64";
    case Kind::F32: return ".f32";
    case Kind::F64: return ".f64";
  }
  return ".b32";
}

Value Gen::newReg(Kind k, Uni u) {
  unsigned n = ++fn_->regs[static_cast<int>(k)];
  Value v;
  v.text = fmt::format("{}{}", regPrefix(k), n);
  v.kind = k;
  v.uni = u;
  return v;
}

void Gen::define(const Value& v, bool assignable) {
  if (v.imm) return;
  fn_->scopes.back().push_back(Slot{v, assignable});
}

namespace {

// The registers named in an operand list ("%r1", "{%r2, %r3}", "[%rd4+8]").
std::vector<std::string> registersIn(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t j = i + 1;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    out.emplace_back(text.substr(i, j - i));
    i = j - 1;
  }
  return out;
}

}  // namespace

// ptxas 13.0 at -O1 and above never finishes (or crashes) on some functions in which a value
// computed by lop3 is compared for equality with zero (setp.eq ... 0): docs/FUZZING.md, "Bugs
// found in ptxas", and tests/fuzz/ptxas-bugs/. The generator keeps the registers a lop3 value
// reaches (through any instruction, never forgotten: conservative) and turns an integer
// `setp.eq` that reads one of them into `setp.ne`. The kernel stays valid either way (no
// generated shape depends on which way such a condition goes) and no random draw changes, so
// every other seed keeps its bytes.
std::string Gen::avoidPtxasHang(const std::string& text) {
  std::string_view t = text;
  if (t.starts_with("@")) t = t.substr(std::min(t.size(), t.find(' ') + 1));
  size_t tab = t.find('\t');
  if (tab == std::string_view::npos) return text;
  std::string_view opcode = t.substr(0, tab), operands = t.substr(tab + 1);
  size_t comma = operands.find(", ");
  if (operands.starts_with("[") || comma == std::string_view::npos) return text;  // a store: no result
  if (operands.starts_with("{")) comma = operands.find("}") + 1;
  std::string_view result = operands.substr(0, comma), sources = operands.substr(std::min(operands.size(), comma + 1));
  bool tainted = opcode.starts_with("lop3");
  for (const std::string& r : registersIn(sources)) tainted |= fn_->lop3Derived.count(r) > 0;
  if (!tainted) return text;
  for (const std::string& r : registersIn(result)) fn_->lop3Derived.insert(r);
  bool integerEq = opcode.starts_with("setp.eq.") && opcode.find(".f") == std::string_view::npos;
  if (!integerEq || opcode.starts_with("lop3")) return text;
  std::string out = text;
  out.replace(out.find("setp.eq."), 8, "setp.ne.");
  return out;
}

void Gen::emit(const std::string& raw) {
  std::string text = avoidPtxasHang(raw);
  fn_->lines.push_back("\t" + text + ";");
  ++fn_->instructions;
  fn_->dynamic += mult_;
}

void Gen::emitRaw(const std::string& text) { fn_->lines.push_back(text); }

void Gen::label(const std::string& name) { fn_->lines.push_back(name + ":"); }

std::string Gen::newLabel(const char* hint) { return fmt::format("$L_{}_{}", hint, ++labels); }

Value Gen::immInt(Kind k, int64_t v) {
  Value r;
  r.kind = k;
  r.uni = Uni::Const;
  r.imm = true;
  r.immValue = v;
  // Decimal mostly; hex now and then (the parser must read both the same way).
  if (v >= 0 && rng.chance(15)) {
    r.text = fmt::format("0x{:X}", static_cast<uint64_t>(v));
  } else {
    r.text = fmt::format("{}", v);
  }
  return r;
}

Value Gen::imm(Kind k) {
  switch (k) {
    case Kind::Pred: {
      // Predicates have no immediates; callers that need one materialize it.
      return immInt(Kind::B32, 1);
    }
    case Kind::B16: {
      int64_t v = rng.pick<int64_t>({0, 1, 2, 3, 7, 15, 255, -1, -2, 0x7fff, 100, 1000});
      if (rng.chance(40)) v = rng.range(-64, 64);
      return immInt(k, v);
    }
    case Kind::B32: {
      int64_t v;
      switch (rng.below(5)) {
        case 0: v = rng.range(-16, 16); break;
        case 1: v = rng.range(0, 255); break;
        case 2: v = rng.pick<int64_t>({31, 32, 0x7fffffff, -2147483647 - 1, -1, 0xffff, 0x10000, 1 << 20});
          break;
        case 3: v = rng.range(-100000, 100000); break;
        default: v = rng.range(0, 3); break;
      }
      return immInt(k, v);
    }
    case Kind::B64: {
      int64_t v;
      switch (rng.below(4)) {
        case 0: v = rng.range(-16, 16); break;
        case 1: v = rng.pick<int64_t>({0x100000000LL, 0x7fffffffffffffffLL, -1, 0xffffffffLL, 1LL << 40});
          break;
        case 2: v = rng.range(-1000000, 1000000); break;
        default: v = static_cast<int64_t>(rng.next() >> rng.range(1, 63)); break;
      }
      return immInt(k, v);
    }
    case Kind::F32: {
      Value r;
      r.kind = k;
      r.uni = Uni::Const;
      r.imm = true;
      float f;
      switch (rng.below(4)) {
        case 0: f = static_cast<float>(rng.range(-8, 8)); break;
        case 1: f = rng.pick<float>({0.5f, 0.25f, 1.5f, -0.75f, 3.14159265f, 1e-3f, 1e6f, -0.0f}); break;
        case 2: f = static_cast<float>(rng.range(-1000, 1000)) / 64.0f; break;
        default: f = static_cast<float>(rng.range(-1 << 20, 1 << 20)) / 1024.0f; break;
      }
      r.text = f32Imm(f);
      return r;
    }
    case Kind::F64: {
      Value r;
      r.kind = k;
      r.uni = Uni::Const;
      r.imm = true;
      double d;
      switch (rng.below(3)) {
        case 0: d = static_cast<double>(rng.range(-8, 8)); break;
        case 1: d = rng.pick<double>({0.5, 0.1, 1.0 / 3.0, -2.5, 2.718281828459045, 1e-7, 1e12}); break;
        default: d = static_cast<double>(rng.range(-1000000, 1000000)) / 4096.0; break;
      }
      r.text = f64Imm(d);
      return r;
    }
  }
  return immInt(Kind::B32, 0);
}

Value Gen::materialize(const Value& v) {
  if (!v.imm) return v;
  Value r = newReg(v.kind, Uni::Const);
  switch (v.kind) {
    case Kind::B16: emit(fmt::format("mov.b16 \t{}, {}", r.text, v.text)); break;
    case Kind::B32: emit(fmt::format("mov.b32 \t{}, {}", r.text, v.text)); break;
    case Kind::B64: emit(fmt::format("mov.b64 \t{}, {}", r.text, v.text)); break;
    case Kind::F32: emit(fmt::format("mov.f32 \t{}, {}", r.text, v.text)); break;
    case Kind::F64: emit(fmt::format("mov.f64 \t{}, {}", r.text, v.text)); break;
    case Kind::Pred: break;
  }
  define(r);
  return r;
}

Value Gen::pick(Kind k, Uni maxU, bool allowImm) {
  if (k != Kind::Pred && allowImm && rng.chance(15)) return imm(k);
  std::vector<const Slot*> inner, all;
  for (size_t s = 0; s < fn_->scopes.size(); ++s) {
    for (const Slot& slot : fn_->scopes[s]) {
      if (slot.v.kind != k || slot.v.uni > maxU) continue;
      all.push_back(&slot);
      if (s + 1 == fn_->scopes.size()) inner.push_back(&slot);
    }
  }
  // Prefer values of the innermost scope half of the time: chains of dependent instructions
  // inside one arm are what if-conversion and selection look at.
  if (!inner.empty() && rng.coin()) return rng.pick(inner)->v;
  if (!all.empty()) return rng.pick(all)->v;
  if (k == Kind::Pred) {
    Value a = pick(Kind::B32, maxU, true);
    Value b = pick(Kind::B32, maxU, true);
    if (a.imm && b.imm) a = materialize(a);
    Value p = newReg(Kind::Pred, worst(a.uni, b.uni));
    emit(fmt::format("setp.{}.s32 \t{}, {}, {}", rng.pick<const char*>({"lt", "ne", "ge", "eq"}), p.text, a.text,
                     b.text));
    define(p);
    return p;
  }
  Value v = imm(k);
  if (allowImm) return v;
  return materialize(v);
}

Value Gen::existingDest(Kind k, Uni u, const Ctx& c) {
  Uni need = worst(u, c.flow);
  std::vector<const Slot*> ok;
  for (const auto& scope : fn_->scopes)
    for (const Slot& slot : scope)
      if (slot.assignable && slot.v.kind == k && slot.v.uni >= need && slot.v.uni != Uni::Const) ok.push_back(&slot);
  if (ok.empty()) return Value{};
  return rng.pick(ok)->v;
}

Value Gen::dest(Kind k, Uni u, const Ctx& c, unsigned reusePercent) {
  if (rng.chance(reusePercent)) {
    Value v = existingDest(k, u, c);
    if (v) return v;
  }
  Value r = newReg(k, u);
  define(r);
  return r;
}

Uni Gen::randomLevel(const Ctx& c) {
  // The level of the operands an instruction may read: mostly anything, sometimes only values
  // that keep uniform registers uniform.
  if (c.flow >= Uni::Div) return Uni::Div;
  switch (rng.weighted({25, 10, 65})) {
    case 0: return Uni::Cta;
    case 1: return worst(Uni::Warp, c.flow);
    default: return Uni::Div;
  }
}

bool Gen::barriersOk(const Ctx& c) const {
  return c.flow <= Uni::Cta && fn_->allowBarriers && !fn_->lanesMissing && !fn_->threadsMissing;
}

bool Gen::warpFull(const Ctx& c) const { return c.flow <= Uni::Warp && !fn_->lanesMissing; }

uint64_t Gen::dynamicLeft(const Ctx& c) const {
  (void)c;
  return fn_->dynamic >= lim.maxDynamic ? 0 : lim.maxDynamic - fn_->dynamic;
}

}  // namespace ptxopt::fuzz
